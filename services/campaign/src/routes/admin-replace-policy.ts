import { AdminLaunchPolicySchema } from '@preflight/contract';
import { notFound, parseBody, pathId, requireAdmin } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { policyProblem } from '../domain/launch-policy.ts';
import { replacePolicy } from '../storage/readiness.ts';
import type { Registration } from './context.ts';

/**
 * The manifest's policy shape plus the domain's rule that AtRisk is not more severe than
 * DoNotLaunch, checked in one pass (not io.body, then the rule) so that a body with faults of
 * both kinds gets every field's message in one 422, as zod reports them together.
 */
const ConsistentPolicySchema = AdminLaunchPolicySchema.superRefine((policy, ctx) => {
  const problem = policyProblem(policy);
  if (problem) ctx.addIssue({ code: 'custom', path: problem.field.split('.'), message: problem.message });
});

/**
 * PUT /admin/v1/campaigns/:id/policy: replaces the campaign's launch thresholds and recomputes
 * its verdict in the same transaction, so the next read of the campaign reflects it. Answers
 * with the policy. Unknown properties, missing fields, bad severities, negative or fractional
 * counts and an AtRisk threshold more severe than the DoNotLaunch one are 422.
 */
export const register: Registration = (app, { db, events, metrics }) =>
  route(app, 'adminReplacePolicy', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'campaign');
    const policy = parseBody(ConsistentPolicySchema, req.body);
    const replaced = await replacePolicy(db, id, policy, events, orgScope);
    if (!replaced) throw notFound('campaign', id);
    metrics.readinessRecomputed.inc({ trigger: 'policy', outcome: replaced.recompute.outcome });
    io.send(replaced.policy);
  });
