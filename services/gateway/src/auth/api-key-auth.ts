import type { Request } from 'express';
import type { Kysely } from '@preflight/db';
import { AppError } from '@preflight/http';
import type { Logger } from '@preflight/log';
import type { AuthFailureReason, GatewayMetrics } from '../metrics.ts';
import type { FailoverRateLimiter } from '../rate-limit/failover-limiter.ts';
import type { RateLimitDecision } from '../rate-limit/policy.ts';
import { findKeyIdentityByHash, type KeyIdentity } from '../storage/api-keys.ts';
import type { IdentityDb } from '../storage/schema.ts';
import { hashApiKey, parseApiKey } from './api-key-format.ts';
import { presentedApiKey } from './credentials.ts';
import { KeyCache } from './key-cache.ts';
import type { LastUsedRecorder } from './last-used.ts';

const REALM = 'Bearer realm="preflight-api"';

const DETAILS: Record<AuthFailureReason, string> = {
  missing: 'No API key was provided. Send it as `Authorization: Bearer <key>` or `X-Api-Key: <key>`.',
  malformed: 'The API key is not valid.',
  unknown: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
  expired: 'The API key is not valid.',
  admin_token_invalid: 'The API key is not valid.',
  member_token_invalid: 'The API key is not valid.',
};

function refuse(metrics: GatewayMetrics, reason: AuthFailureReason): AppError {
  metrics.authFailures.inc({ reason });
  const challenge = reason === 'missing' ? REALM : `${REALM}, error="invalid_token"`;
  return new AppError('unauthorized', DETAILS[reason], { headers: { 'WWW-Authenticate': challenge } });
}

/**
 * Resolves the API key a request presents to its key and organisation, or throws a 401.
 * Shape and checksum first (no I/O for junk), then the Redis cache, then Postgres. The admin
 * token does not have the key shape, so it never passes here.
 */
export function apiKeyAuthenticator(deps: {
  db: Kysely<IdentityDb>;
  cache: KeyCache;
  lastUsed: LastUsedRecorder;
  metrics: GatewayMetrics;
  logger: Logger;
}) {
  return async (req: Request): Promise<KeyIdentity> => {
    const presented = presentedApiKey(req);
    if (!presented) throw refuse(deps.metrics, 'missing');
    if ('malformed' in presented || !parseApiKey(presented.key)) throw refuse(deps.metrics, 'malformed');

    const keyHash = hashApiKey(presented.key);
    let identity = await deps.cache.get(keyHash);
    if (!identity) {
      try {
        identity = await findKeyIdentityByHash(deps.db, keyHash);
      } catch (err) {
        deps.logger.error({ err }, 'identity store unavailable while authenticating');
        throw new AppError('dependency_unavailable', 'Authentication is temporarily unavailable; try again shortly.');
      }
      if (!identity) throw refuse(deps.metrics, 'unknown');
      deps.cache.fill(keyHash, identity.revoked ? { revoked: true } : identity);
    }
    if (identity.revoked) throw refuse(deps.metrics, 'revoked');
    deps.lastUsed.record(identity.keyId);
    return identity;
  };
}

/** An authenticated key and the rate-limit decision on this request. */
export interface KeyAdmission {
  key: KeyIdentity;
  decision: RateLimitDecision;
}

/** Keys remembered per replica at most; beyond it the memo starts over. */
const KNOWN_KEYS_MAX = 10_000;

/**
 * Authentication and the rate limit of an API key request, in one Redis round trip for a key
 * this replica has authenticated before: one script reads the key's cache entry and, when it
 * is live, runs the key's sliding log (rate-limit/sliding-log.lua.ts). Everything else — the
 * first request of a key, an expired cache entry, a Redis failure, a degraded limiter — takes
 * the full path: `authenticate` (cache, then Postgres), then the failover limiter.
 *
 * What the replica remembers is only which key id a key hash belongs to, which never changes:
 * whether the key is still valid is read from Redis (or Postgres) on every request, so a
 * revocation tombstone refuses the very next request, as on the full path.
 */
export function apiKeyAdmission(deps: {
  authenticate: (req: Request) => Promise<KeyIdentity>;
  limiter: FailoverRateLimiter;
  cache: KeyCache;
  lastUsed: LastUsedRecorder;
  metrics: GatewayMetrics;
}) {
  const known = new Map<string, { keyId: string; entry: string; identity: KeyIdentity }>();

  async function fast(keyHash: string): Promise<KeyAdmission | undefined> {
    const seen = known.get(keyHash);
    if (!seen) return undefined;
    // Undefined when degraded, locally full or Redis failing: the full path decides then.
    const found = await deps.limiter.checkCachedKey(deps.cache.entryKey(keyHash), seen.keyId);
    if (found === undefined || found.kind === 'miss') return undefined;
    if (found.kind === 'revoked') throw refuse(deps.metrics, 'revoked');
    if (found.entry !== seen.entry) {
      // Refilled by another replica (its own serialisation): read it, and the key id must agree.
      const identity = KeyCache.parse(found.entry);
      if (!identity || identity.revoked || identity.keyId !== seen.keyId) return undefined;
      seen.entry = found.entry;
      seen.identity = identity;
    }
    deps.lastUsed.record(seen.keyId);
    return { key: seen.identity, decision: found.decision };
  }

  return async (req: Request): Promise<KeyAdmission> => {
    const presented = presentedApiKey(req);
    const keyHash = presented && 'key' in presented ? hashApiKey(presented.key) : undefined;
    const admitted = keyHash !== undefined ? await fast(keyHash) : undefined;
    if (admitted) return admitted;

    const key = await deps.authenticate(req);
    const decision = await deps.limiter.check(key.keyId);
    if (keyHash !== undefined && !known.has(keyHash)) {
      if (known.size >= KNOWN_KEYS_MAX) known.clear();
      known.set(keyHash, { keyId: key.keyId, entry: KeyCache.serialise(key), identity: key });
    }
    return { key, decision };
  };
}
