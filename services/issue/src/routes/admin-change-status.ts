import { z } from 'zod';
import { IssueStatusSchema, optionalText } from '@preflight/contract';
import { conflict, isUuid, notFound, parseBody, pathId, requireAdmin, sendJson, validationFailed } from '@preflight/http';
import { changeIssueStatus } from '../storage/issue-changes.ts';
import { adminIssueDetail } from './admin-issue-detail.ts';
import type { Registration } from './context.ts';

const MAX_REASON = 2_000;

export const ChangeStatusRequestSchema = z
  .strictObject({
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
  })
  .superRefine((body, ctx) => {
    if (body.to === 'Duplicate' && body.duplicateOfId === null) {
      ctx.addIssue({ code: 'custom', path: ['duplicateOfId'], message: 'Is required when marking an issue as Duplicate.' });
    }
    if (body.to !== 'Duplicate' && body.duplicateOfId !== null) {
      ctx.addIssue({ code: 'custom', path: ['duplicateOfId'], message: 'Only allowed when marking an issue as Duplicate.' });
    }
  });

/** POST /admin/v1/issues/:id/status: one step of the workflow (domain/issue-workflow.ts). */
export const adminChangeStatus: Registration = (app, { db, events }) => {
  app.post('/admin/v1/issues/:id/status', async (req, res) => {
    requireAdmin(req);
    const issueId = pathId(req.params.id, 'issue');
    const body = parseBody(ChangeStatusRequestSchema, req.body);
    const outcome = await changeIssueStatus(db, events, { issueId, to: body.to, reason: body.reason, duplicateOfId: body.duplicateOfId });
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
        sendJson(req, res, 200, await adminIssueDetail(db, issueId));
    }
  });
};
