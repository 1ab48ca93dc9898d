import type { Request } from 'express';
import type { Kysely } from '@preflight/db';
import { AppError } from '@preflight/http';
import type { Logger } from '@preflight/log';
import type { AuthFailureReason, GatewayMetrics } from '../metrics.ts';
import { findKeyIdentityByHash, type KeyIdentity } from '../storage/api-keys.ts';
import type { IdentityDb } from '../storage/schema.ts';
import { hashApiKey, parseApiKey } from './api-key-format.ts';
import { presentedApiKey } from './credentials.ts';
import type { KeyCache } from './key-cache.ts';
import type { LastUsedRecorder } from './last-used.ts';

const REALM = 'Bearer realm="preflight-api"';

const DETAILS: Record<AuthFailureReason, string> = {
  missing: 'No API key was provided. Send it as `Authorization: Bearer <key>` or `X-Api-Key: <key>`.',
  malformed: 'The API key is not valid.',
  unknown: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
  admin_token_invalid: 'The API key is not valid.',
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
