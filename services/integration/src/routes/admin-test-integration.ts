import { notFound, pathId, requireAdmin } from '@preflight/http';
import { SecretUnavailableError } from '@preflight/secret-box';
import { route } from '@preflight/service-kit';
import { providerErrorIn } from '../outbound/safe-fetch.ts';
import { isTrackerKind } from '../providers/index.ts';
import type { TrackerKind } from '../providers/provider.ts';
import { recordActivity } from '../storage/activity.ts';
import { findConnection, recordConnectionHealth, type ConnectionRow } from '../storage/connections.ts';
import type { Registration } from './context.ts';

/**
 * POST /admin/v1/integrations/:id/test: a test message (chat) or an authenticated read of the
 * repository, project or team (trackers). 200 `{ok, statusCode, detail}` either way: the
 * provider's refusal is the answer, not an error of this API. The result updates the
 * connection's health (a refused credential is `needs-attention`, a success clears it).
 */
export const register: Registration = (app, ctx) =>
  route(app, 'adminTestIntegration', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'integration');
    const row = await findConnection(ctx.db, id, orgScope);
    if (!row) throw notFound('integration', id);
    const answer = await tryConnection(ctx, row);
    await recordActivity(ctx.db, { connectionId: id, direction: 'out', issueId: null, action: 'test', outcome: answer.ok ? 'succeeded' : 'failed', statusCode: answer.statusCode, error: answer.ok ? null : answer.detail });
    if (answer.ok) await recordConnectionHealth(ctx.db, id, { status: 'active', error: null });
    else if (answer.credentials) await recordConnectionHealth(ctx.db, id, { status: 'needs-attention', error: answer.detail });
    io.send({ ok: answer.ok, statusCode: answer.statusCode, detail: answer.detail });
  });

type TestAnswer = { ok: boolean; statusCode: number | null; detail: string; credentials?: boolean };

async function tryConnection(ctx: Parameters<Registration>[1], row: ConnectionRow): Promise<TestAnswer> {
  try {
    const result = isTrackerKind(row.kind) ? await ctx.clients.tracker(row as ConnectionRow & { kind: TrackerKind }).test() : await ctx.clients.chat(row).test();
    return { ok: true, statusCode: result.statusCode, detail: result.detail ?? 'ok' };
  } catch (err) {
    if (err instanceof SecretUnavailableError) return { ok: false, statusCode: null, detail: 'the credentials cannot be decrypted (their key is not configured); save them again', credentials: true };
    const provider = providerErrorIn(err);
    if (!provider) throw err;
    return { ok: false, statusCode: provider.statusCode, detail: provider.message, credentials: provider.kind === 'credentials' };
  }
}
