import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { Kysely } from '@preflight/db';
import { AppError, type Caller } from '@preflight/http';
import type { Logger } from '@preflight/log';
import type { AuthFailureReason, GatewayMetrics } from '../metrics.ts';
import { findOperatorIdentityByHash, type OperatorIdentity } from '../storage/operator-tokens.ts';
import type { AuditActorKind, IdentityDb, OperatorScope } from '../storage/schema.ts';
import type { AdminLockout } from './admin-lockout.ts';
import { bearerToken, looksLikeServiceToken } from './credentials.ts';
import type { KeyCache } from './key-cache.ts';
import type { LastUsedRecorder } from './last-used.ts';
import { claimsOperatorToken, hashOperatorToken, isWellFormedOperatorToken } from './operator-token-format.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Who made an admin call: the subject of its rate limit and idempotency records, and its audit actor. */
export interface AdminCaller {
  /**
   * The rate-limit bucket: `admin:` + a digest prefix of the bootstrap token (never the token
   * itself), `opr:<token id>` for an operator token, `member:<user id>` for a console member.
   */
  subject: string;
  actor: { kind: AuditActorKind; id: string | null; name: string | null };
  /**
   * The operator token's scopes; null for the bootstrap token, which may do everything, and for
   * a console member, whose role decides instead (routing/member-access.ts).
   */
  scopes: OperatorScope[] | null;
  /** When the operator token expires (null: never, and always for the bootstrap token). */
  expiresAt: Date | null;
  /** The console member the call acts for (auth/member-token.ts); absent for the operator. */
  member?: Extract<Caller, { kind: 'member' }>;
}

/** Any operator may read; anything but GET/HEAD needs `admin:write` (or the bootstrap token). */
export const mayWrite = (caller: AdminCaller): boolean => caller.scopes === null || caller.scopes.includes('admin:write');

export const ADMIN_CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="preflight-admin"' };

export interface AdminAuthDeps {
  adminToken: string;
  metrics: GatewayMetrics;
  lockout: AdminLockout;
  db: Kysely<IdentityDb>;
  /** Operator tokens by hash, in the API keys' cache mechanism (namespace `opr`). */
  cache: KeyCache<OperatorIdentity>;
  lastUsed: LastUsedRecorder;
  logger: Logger;
  /** A console token (a JWT, never an operator token's shape): auth/member-token.ts. */
  authenticateMember: (token: string) => Promise<AdminCaller>;
  now?: () => number;
}

/**
 * Authenticates an admin call: the bootstrap `ADMIN_TOKEN`, or an operator token (`opr_…`).
 *
 * The bootstrap token is compared over SHA-256 digests, so the comparison is constant-time and
 * does not leak its length either. Anything else starting `opr_` is an operator token: shape and
 * checksum first (no I/O for junk), then the Redis cache, then Postgres, as API keys are (a
 * revocation's tombstone refuses it on every replica from the next request); an expired one is
 * refused by its `expiresAt` on every request. An API key is just a wrong token here.
 *
 * An address with too many wrong tokens lately is refused before any comparison
 * (AdminLockout). A revoked or expired operator token is not a guess and does not count.
 *
 * A bearer shaped like a JWT is the console's token for a signed-in member and goes to
 * `authenticateMember` first, outside the lockout (config.ts keeps ADMIN_TOKEN from that shape).
 */
export function adminAuthenticator(deps: AdminAuthDeps) {
  const expected = digest(deps.adminToken);
  const bootstrap: AdminCaller = {
    subject: `admin:${expected.subarray(0, 12).toString('hex')}`,
    actor: { kind: 'bootstrap', id: null, name: null },
    scopes: null,
    expiresAt: null,
  };
  const now = deps.now ?? Date.now;

  const refuse = (reason: AuthFailureReason, detail: string) => {
    deps.metrics.authFailures.inc({ reason });
    return new AppError('unauthorized', detail, { headers: ADMIN_CHALLENGE });
  };

  async function operatorIdentity(token: string): Promise<OperatorIdentity | { revoked: true } | undefined> {
    const hash = hashOperatorToken(token);
    const cached = await deps.cache.get(hash);
    if (cached) return cached;
    let found: OperatorIdentity | undefined;
    try {
      found = await findOperatorIdentityByHash(deps.db, hash);
    } catch (err) {
      deps.logger.error({ err }, 'identity store unavailable while authenticating an operator token');
      throw new AppError('dependency_unavailable', 'Authentication is temporarily unavailable; try again shortly.');
    }
    if (found) deps.cache.fill(hash, found.revoked ? { revoked: true } : found);
    return found;
  }

  return async (req: Request): Promise<AdminCaller> => {
    const presented = bearerToken(req);
    if (presented !== undefined && looksLikeServiceToken(presented)) return deps.authenticateMember(presented);
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const wait = deps.lockout.lockedFor(address);
    if (wait > 0) {
      deps.metrics.adminLockouts.inc();
      throw new AppError('rate_limited', `Too many wrong operator tokens from this address (${deps.lockout.max} within ${deps.lockout.windowSeconds} s). Retry after ${wait} second${wait === 1 ? '' : 's'}.`, {
        headers: { 'Retry-After': String(wait) },
      });
    }
    if (presented === undefined) {
      throw refuse('missing', 'The admin API requires an operator token: send `Authorization: Bearer <ADMIN_TOKEN>` or `Authorization: Bearer opr_…`.');
    }
    if (timingSafeEqual(digest(presented), expected)) return bootstrap;

    const identity = claimsOperatorToken(presented) && isWellFormedOperatorToken(presented) ? await operatorIdentity(presented) : undefined;
    if (!identity) {
      deps.lockout.recordFailure(address);
      throw refuse('admin_token_invalid', 'The operator token is not valid.');
    }
    if (identity.revoked || !('tokenId' in identity)) throw refuse('revoked', 'The operator token has been revoked.');
    const expiresAt = identity.expiresAt === null ? null : new Date(identity.expiresAt);
    if (expiresAt !== null && expiresAt.getTime() <= now()) throw refuse('expired', 'The operator token has expired.');
    deps.lastUsed.record(identity.tokenId);
    return {
      subject: `opr:${identity.tokenId}`,
      actor: { kind: 'operator-token', id: identity.tokenId, name: identity.name },
      scopes: identity.scopes,
      expiresAt,
    };
  };
}
