import { z } from 'zod';
import { parseQuery, sendJson } from '@preflight/http';
import { listAuditEntries } from '../storage/audit-log.ts';
import type { LocalEndpoint } from '../routing/route.ts';

export const MAX_LIMIT = 200;
export const DEFAULT_LIMIT = 50;

const AuditLogQuerySchema = z.object({
  limit: z
    .string({ error: 'limit must be given once.' })
    .regex(/^\d+$/, 'limit must be a whole number.')
    .transform(Number)
    .pipe(z.number().min(1, 'limit must be at least 1.').max(MAX_LIMIT, `limit must be at most ${MAX_LIMIT}.`))
    .default(DEFAULT_LIMIT),
  before: z.iso.datetime({ offset: true, error: 'before must be a date-time, e.g. 2026-01-31T12:00:00Z.' }).optional(),
});

/**
 * GET /admin/v1/audit-log?limit=&before= → 200, newest first: every admin write the gateway
 * answered with a 2xx (audit/recorder.ts), `before` exclusive. A bad `limit` or `before` is a 400
 * with an `errors` map, never clamped.
 */
export const auditLog: LocalEndpoint = {
  async handle({ req, res, deps }) {
    const { limit, before } = parseQuery(AuditLogQuerySchema, req.query);
    const entries = await listAuditEntries(deps.db, limit, before === undefined ? undefined : new Date(before));
    sendJson(
      req,
      res,
      200,
      entries.map((e) => ({
        at: e.at.toISOString(),
        actor: e.actor,
        method: e.method,
        path: e.path,
        status: e.status,
        orgId: e.orgId,
        traceId: e.traceId,
      })),
    );
  },
};
