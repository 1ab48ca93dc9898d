import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AppError } from '@preflight/http';
import type { GatewayMetrics } from '../metrics.ts';
import type { AdminLockout } from './admin-lockout.ts';
import { bearerToken } from './credentials.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Who made an admin call: the subject of its rate limit and idempotency records. */
export interface AdminCaller {
  /** `admin:` + a digest prefix of the token: never the token itself. */
  subject: string;
}

/**
 * Checks the operator token. Both sides are hashed first so the comparison is constant-time
 * and does not leak the token's length either. An API key is just a wrong token here. An
 * address with too many wrong tokens lately is refused before any comparison (AdminLockout).
 */
export function adminAuthenticator(adminToken: string, metrics: GatewayMetrics, lockout: AdminLockout) {
  const expected = digest(adminToken);
  const subject = `admin:${expected.subarray(0, 12).toString('hex')}`;
  return (req: Request): AdminCaller => {
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const wait = lockout.lockedFor(address);
    if (wait > 0) {
      metrics.adminLockouts.inc();
      throw new AppError('rate_limited', `Too many wrong operator tokens from this address (${lockout.max} within ${lockout.windowSeconds} s). Retry after ${wait} second${wait === 1 ? '' : 's'}.`, {
        headers: { 'Retry-After': String(wait) },
      });
    }
    const presented = bearerToken(req);
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return { subject };
    if (presented !== undefined) lockout.recordFailure(address);
    metrics.authFailures.inc({ reason: presented === undefined ? 'missing' : 'admin_token_invalid' });
    throw new AppError(
      'unauthorized',
      presented === undefined
        ? 'The admin API requires the operator token: send `Authorization: Bearer <ADMIN_TOKEN>`.'
        : 'The operator token is not valid.',
      { headers: { 'WWW-Authenticate': 'Bearer realm="preflight-admin"' } },
    );
  };
}
