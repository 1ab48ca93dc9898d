import { z } from 'zod';
import { IssueStatusSchema, type IssueStatus } from '../../enums.ts';
import { optionalText } from '../../requests.ts';

/**
 * The fields of an issue status change, shared by POST /admin/v1/issues/:id/status
 * (issue-shapes.ts) and POST /internal/v1/issues/:id/status (internal.ts, which adds `origin`).
 */
const MAX_REASON = 2_000;

export const issueStatusChangeFields = {
  to: z
    .unknown()
    .superRefine((v, ctx) => {
      if (v === undefined || v === null) ctx.addIssue({ code: 'custom', message: 'Is required.' });
    })
    .pipe(IssueStatusSchema),
  reason: optionalText(MAX_REASON),
  duplicateOfId: z
    .guid({ error: (issue) => (issue.code === 'invalid_type' ? 'Must be a string.' : 'Must be an issue id (UUID).') })
    .transform((v) => v.toLowerCase())
    .nullish()
    .transform((v) => v ?? null),
};

/** duplicateOfId exactly when `to` is Duplicate. */
export function duplicateOfRule(body: { to: IssueStatus; duplicateOfId: string | null }, ctx: z.RefinementCtx): void {
  if (body.to === 'Duplicate' && body.duplicateOfId === null) {
    ctx.addIssue({ code: 'custom', path: ['duplicateOfId'], message: 'Is required when marking an issue as Duplicate.' });
  }
  if (body.to !== 'Duplicate' && body.duplicateOfId !== null) {
    ctx.addIssue({ code: 'custom', path: ['duplicateOfId'], message: 'Only allowed when marking an issue as Duplicate.' });
  }
}
