import { z } from 'zod';
import { IssueSeveritySchema } from '@preflight/contract';
import { notFound, parseBody, pathId, requireAdmin, sendJson } from '@preflight/http';
import { MAX_OPEN_LIMIT, policyProblem } from '../domain/launch-policy.ts';
import { replacePolicy } from '../storage/readiness.ts';
import type { Registration } from './context.ts';

const required = { error: (issue: { input: unknown }) => (issue.input === undefined ? 'Is required.' : undefined) };

const ThresholdSchema = z.strictObject(
  {
    minSeverity: IssueSeveritySchema,
    maxOpen: z
      .number({ error: (issue) => (issue.input === undefined ? 'Is required.' : 'Must be a whole number.') })
      .int('Must be a whole number.')
      .min(0, 'Must be at least 0.')
      .max(MAX_OPEN_LIMIT, `Must be at most ${MAX_OPEN_LIMIT}.`),
  },
  required,
);

/** The whole policy, every field required (PUT replaces); the thresholds must be consistent. */
const LaunchPolicySchema = z
  .strictObject({ doNotLaunch: ThresholdSchema, atRisk: ThresholdSchema }, required)
  .superRefine((policy, ctx) => {
    const problem = policyProblem(policy);
    if (problem) ctx.addIssue({ code: 'custom', path: problem.field.split('.'), message: problem.message });
  });

/**
 * PUT /admin/v1/campaigns/:id/policy: replaces the campaign's launch thresholds and recomputes
 * its verdict in the same transaction, so the next read of the campaign reflects it. Answers
 * with the policy. Unknown properties, missing fields, bad severities, negative or fractional
 * counts and an AtRisk threshold more severe than the DoNotLaunch one are 422.
 */
export const register: Registration = (app, { db, events, metrics }) => {
  app.put('/admin/v1/campaigns/:id/policy', async (req, res) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const policy = parseBody(LaunchPolicySchema, req.body);
    const replaced = await replacePolicy(db, id, policy, events, orgScope);
    if (!replaced) throw notFound('campaign', id);
    metrics.readinessRecomputed.inc({ trigger: 'policy', outcome: replaced.recompute.outcome });
    sendJson(req, res, 200, replaced.policy);
  });
};
