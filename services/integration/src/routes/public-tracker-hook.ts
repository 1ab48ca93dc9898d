import { createHash } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import type { TrackerHookAnswer } from '@preflight/contract';
import { AppError, isUuid, TRACKER_HOOK_BODY_LIMIT } from '@preflight/http';
import { openSecret, SecretUnavailableError } from '@preflight/secret-box';
import { route } from '@preflight/service-kit';
import { credentialsContext, inboundSecretContext } from '../domain/sealing.ts';
import { TRACKER_PROVIDERS, isTrackerKind } from '../providers/index.ts';
import { recordActivity } from '../storage/activity.ts';
import { credentialsOf, findConnection, inboundSecretOf, type ConnectionRow } from '../storage/connections.ts';
import { enqueueJobs } from '../storage/jobs.ts';
import { findLinkByExternalId } from '../storage/links.ts';
import type { InboundPayload } from '../worker/payloads.ts';
import type { Registration } from './context.ts';

const unauthorized = () => new AppError('unauthorized', 'The request is not signed with this connection’s inbound secret.');

/** The provider's delivery id when it sends one, else the body's hash: a redelivered hook queues nothing twice. */
function deliveryKey(headers: Record<string, string | string[] | undefined>, raw: Buffer): string {
  const id = headers['x-github-delivery'] ?? headers['linear-delivery'] ?? headers['x-atlassian-webhook-identifier'];
  return `inbound:${typeof id === 'string' && id ? id : createHash('sha256').update(raw).digest('hex')}`;
}

/**
 * The secret the tracker signs with: the one the tracker made up when the connection's
 * credentials carry it (`webhookSecret`, Linear), else the connection's own inbound secret;
 * undefined when it has none. One that no configured key opens is our fault, not the
 * sender's: 503 with Retry-After (logged), so a tracker that retries delivers the change once
 * the key is back, where a 401 had dropped it as badly signed (issue 22, finding 8).
 */
function hookSecretOf(ctx: Parameters<Registration>[1], connection: ConnectionRow): string | undefined {
  try {
    const credentials = JSON.parse(openSecret(ctx.keys, credentialsOf(connection), credentialsContext(connection.id))) as { webhookSecret?: unknown };
    if (typeof credentials.webhookSecret === 'string' && credentials.webhookSecret) return credentials.webhookSecret;
    const sealed = inboundSecretOf(connection);
    return sealed ? openSecret(ctx.keys, sealed, inboundSecretContext(connection.id)) : undefined;
  } catch (err) {
    if (!(err instanceof SecretUnavailableError)) return undefined;
    ctx.logger.error({ connectionId: connection.id, keyId: err.keyId }, 'inbound secret cannot be decrypted; hook answered 503 for the tracker to retry');
    throw new AppError('dependency_unavailable', 'This connection’s inbound secret cannot be checked just now. Retry later.');
  }
}

const readRaw = express.raw({ type: () => true, limit: TRACKER_HOOK_BODY_LIMIT });

/** The body's bytes, which the signature covers; read in the handler, since route() registers the handler alone. */
function rawBodyOf(req: Request, res: Response): Promise<Buffer> {
  return new Promise((resolve, reject) => readRaw(req, res, (err?: unknown) => (err ? reject(err) : resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)))));
}

/** GitHub may post `application/x-www-form-urlencoded` with the JSON in `payload`. */
function parseBody(contentType: string | undefined, raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (contentType?.startsWith('application/x-www-form-urlencoded')) return JSON.parse(new URLSearchParams(text).get('payload') ?? 'null');
  return JSON.parse(text);
}

/**
 * POST /integrations/v1/hooks/:connectionId, from the public ingress without an API key: a
 * tracker's webhook. Only a request signed with the connection's inbound secret in the
 * provider's own way is read (anything else: 401, nothing changes, and an unknown connection
 * looks the same). A state change of a linked issue is queued and applied by the worker through
 * the issue service (`accepted`); an echo of a change this service made, or anything else, is
 * `ignored`. Both are 200.
 */
export const register: Registration = (app, ctx) =>
  route(app, 'trackerHook', async (req, res, io) => {
    const answer = (status: TrackerHookAnswer['status']) => io.send({ status });
    const raw = await rawBodyOf(req, res);
    const id = String(req.params.connectionId);
    const connection = isUuid(id) ? await findConnection(ctx.db, id.toLowerCase()) : undefined;
    if (!connection || !isTrackerKind(connection.kind)) throw unauthorized();
    const secret = hookSecretOf(ctx, connection);
    if (!secret) throw unauthorized();
    const provider = TRACKER_PROVIDERS[connection.kind];
    if (!provider.hooks.verify(req.headers, raw, secret)) {
      ctx.logger.warn({ connectionId: connection.id }, 'inbound hook with a bad signature refused');
      throw unauthorized();
    }

    let body: unknown;
    try {
      body = parseBody(req.headers['content-type'], raw);
    } catch {
      throw new AppError('bad_request', 'The signed body is not JSON.');
    }
    const change = provider.hooks.parse(req.headers, body, connection.config);
    if (!change) return answer('ignored');

    const base = { connectionId: connection.id, direction: 'in' as const, action: 'status-change', externalKey: change.externalKey };
    const link = await findLinkByExternalId(ctx.db, connection.id, change.externalId);
    if (!link) {
      await recordActivity(ctx.db, { ...base, issueId: null, outcome: 'skipped', error: 'no Preflight issue is linked to it' });
      return answer('ignored');
    }
    if (connection.paused) {
      await recordActivity(ctx.db, { ...base, issueId: link.issueId, outcome: 'skipped', error: 'the connection is paused' });
      return answer('ignored');
    }
    if (link.state === change.state) {
      await recordActivity(ctx.db, { ...base, issueId: link.issueId, outcome: 'skipped', error: `echo: the tracker issue is already ${change.state}, as last synced` });
      return answer('ignored');
    }
    const payload: InboundPayload = { issueId: link.issueId, externalId: change.externalId, externalKey: change.externalKey, state: change.state, change: change.change };
    await enqueueJobs(ctx.db, [{ connectionId: connection.id, issueId: link.issueId, action: 'apply-inbound', dedupeKey: deliveryKey(req.headers, raw), payload: payload as unknown as Record<string, unknown> }]);
    ctx.worker.kick();
    // 200, not 202: Linear counts anything but 200 as a failed delivery.
    answer('accepted');
  });
