import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AppError } from '@preflight/http';
import type { GatewayMetrics } from '../metrics.ts';
import { bearerToken } from './credentials.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Checks the operator token. Both sides are hashed first so the comparison is constant-time
 * and does not leak the token's length either. An API key is just a wrong token here.
 */
export function adminAuthenticator(adminToken: string, metrics: GatewayMetrics) {
  const expected = digest(adminToken);
  return (req: Request): void => {
    const presented = bearerToken(req);
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return;
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
