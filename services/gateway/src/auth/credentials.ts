import type { Request } from 'express';

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(req: Request): string | undefined {
  const header = req.header('authorization');
  if (!header) return undefined;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/**
 * The API key a request presents: `Authorization: Bearer` first, else `X-Api-Key`. An
 * Authorization header of another scheme still counts as a presented (and invalid) credential,
 * so a Basic header is a 401 "invalid", not "missing".
 */
export function presentedApiKey(req: Request): { key: string } | { malformed: true } | undefined {
  const authorization = req.header('authorization');
  if (authorization !== undefined && authorization !== '') {
    const token = bearerToken(req);
    return token ? { key: token } : { malformed: true };
  }
  const header = req.header('x-api-key')?.trim();
  return header ? { key: header } : undefined;
}

/** A JWS compact serialisation: three base64url parts separated by dots. */
const SERVICE_TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Whether a bearer credential on /admin/v1 is a service token (the console's, acting for a
 * signed-in member) rather than an operator token: neither `opr_…` nor the bootstrap token
 * (config.ts refuses an ADMIN_TOKEN of this shape) can have it.
 */
export const looksLikeServiceToken = (token: string): boolean => SERVICE_TOKEN_SHAPE.test(token);
