import { listAuditEntries } from '../storage/audit-log.ts';
import { localEndpoint } from '../routing/route.ts';
import { auditEntryView } from './views.ts';

/**
 * GET /admin/v1/audit-log?limit=&before= → 200, newest first: every admin write the gateway
 * answered with a 2xx (audit/recorder.ts), `before` exclusive. A bad `limit` or `before` is a 400
 * with an `errors` map, never clamped.
 */
export const auditLog = localEndpoint('adminAuditLog', {
  async handle({ deps }, io) {
    const { limit, before } = io.query;
    const entries = await listAuditEntries(deps.db, limit, before === undefined ? undefined : new Date(before));
    io.send(entries.map(auditEntryView));
  },
});
