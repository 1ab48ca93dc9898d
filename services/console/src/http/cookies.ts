import type { CookieOptions, Request, Response } from 'express';

/**
 * The session cookie: `__Host-` makes browsers insist on Secure, Path=/ and no Domain, so no
 * other host or path can plant or read it. Browsers treat http://127.0.0.1 and localhost as
 * secure contexts, so it works in local development as well.
 */
export const SESSION_COOKIE = '__Host-preflight_session';
/** Before sign-in there is no session to hold the CSRF token: a double-submit cookie holds it. */
export const PRE_SESSION_CSRF_COOKIE = '__Host-preflight_csrf';

const BASE: CookieOptions = { secure: true, httpOnly: true, sameSite: 'lax', path: '/' };

/** The value of one cookie of the request (first of that name), undefined when absent. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export function setSessionCookie(res: Response, id: string, maxAgeSeconds: number): void {
  res.cookie(SESSION_COOKIE, id, { ...BASE, maxAge: maxAgeSeconds * 1000 });
}

export function clearSessionCookie(res: Response): void {
  res.clearCookie(SESSION_COOKIE, BASE);
}

export function setPreSessionCsrfCookie(res: Response, token: string): void {
  res.cookie(PRE_SESSION_CSRF_COOKIE, token, { ...BASE, sameSite: 'strict' });
}
