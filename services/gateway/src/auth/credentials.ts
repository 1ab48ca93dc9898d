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
