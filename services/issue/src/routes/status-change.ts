import { z } from 'zod';
import { IssueStatusSchema, optionalText, type IssueStatus } from '@preflight/contract';
import type { Kysely } from '@preflight/db';
import { conflict, isUuid, notFound, validationFailed } from '@preflight/http';
import { changeIssueStatus } from '../storage/issue-changes.ts';
import type { EventTarget } from '../storage/outbox.ts';
import type { IssueDatabase } from '../storage/schema.ts';

/**
 * What POST /admin/v1/issues/:id/status and POST /internal/v1/issues/:id/status share: the
 * request fields and the outcome → answer mapping. The routes differ only in who may call them
 * and in `origin`.
 */

const MAX_REASON = 2_000;
const MAX_ORIGIN = 200;

const changeStatusShape = {
  to: z.unknown().superRefine((v, ctx) => {
    if (v === undefined || v === null) ctx.addIssue({ code: 'custom', message: 'Is required.' });
  }).pipe(IssueStatusSchema),
  reason: optionalText(MAX_REASON),
  duplicateOfId: z
    .string({ error: 'Must be a string.' })
    .refine(isUuid, 'Must be an issue id (UUID).')
    .transform((v) => v.toLowerCase())
    .nullish()
    .transform((v) => v ?? null),
};

function duplicateRule(body: { to: IssueStatus; duplicateOfId: string | null }, ctx: z.RefinementCtx): void {
  if (body.to === 'Duplicate' && body.duplicateOfId === null) {
    ctx.addIssue({ code: 'custom', path: ['duplicateOfId'], message: 'Is required when marking an issue as Duplicate.' });
  }
  if (body.to !== 'Duplicate' && body.duplicateOfId !== null) {
    ctx.addIssue({ code: 'custom', path: ['duplicateOfId'], message: 'Only allowed when marking an issue as Duplicate.' });
  }
}

/** `{to, reason?, duplicateOfId?}` (duplicateOfId exactly when `to` is Duplicate). */
export const ChangeStatusRequestSchema = z.strictObject(changeStatusShape).superRefine(duplicateRule);

/**
 * `<source>:<id>`, e.g. `integration:<connectionId>`: a lower-case source name, a colon, then an
 * id without spaces. Carried on IssueStatusChanged.origin.
 */
const ORIGIN_PATTERN = /^[a-z][a-z0-9-]*:[A-Za-z0-9._:-]+$/;

/** The internal form: the same fields plus the required `origin`. */
export const InternalChangeStatusRequestSchema = z
  .strictObject({
    ...changeStatusShape,
    origin: z
      .string({ error: (issue) => (issue.input === undefined ? 'Is required.' : 'Must be a string.') })
      .min(1, 'Must not be empty.')
      .max(MAX_ORIGIN, `Must be at most ${MAX_ORIGIN} characters.`)
      .regex(ORIGIN_PATTERN, 'Must be <source>:<id>, for example integration:<connectionId>.'),
  })
  .superRefine(duplicateRule);

/**
 * Applies one workflow step (storage/issue-changes.ts) and turns a refusal into its problem:
 * 404 no such issue (in `orgScope`, a console member's organisation), 409 with `currentStatus` and `allowedTransitions`, 422 a duplicateOfId
 * that names no other issue of the campaign. Returns when the change committed.
 */
export async function applyStatusChange(
  db: Kysely<IssueDatabase>,
  events: EventTarget,
  issueId: string,
  body: { to: IssueStatus; reason: string | null; duplicateOfId: string | null; origin: string | null; orgScope?: string | undefined },
): Promise<void> {
  const outcome = await changeIssueStatus(db, events, { issueId, ...body });
  switch (outcome.kind) {
    case 'not_found':
      throw notFound('issue', issueId);
    case 'not_allowed':
      throw conflict(
        `The issue is ${outcome.current}; it can move to ${outcome.allowed.join(', ')}, not to ${body.to}.`,
        { currentStatus: outcome.current, allowedTransitions: outcome.allowed },
      );
    case 'bad_duplicate':
      throw validationFailed({ duplicateOfId: ['Must name another issue of the same campaign.'] });
    case 'changed':
      return;
  }
}
