import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { AppError } from '@preflight/http';
import { PRE_SESSION_CSRF_COOKIE, readCookie } from './cookies.ts';
import { localsOf } from './session.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin a request says it comes from: Origin, else the Referer's origin. */
function requestOrigin(req: Request): string | undefined {
  const origin = req.headers.origin;
  if (origin && origin !== 'null') return origin;
  const referer = req.headers.referer;
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * CSRF protection on every request that changes something: it must come from the console's own
 * origin (Origin, or Referer when a browser sends no Origin) AND carry the synchronizer token,
 * as the `_csrf` form field or the `X-CSRF-Token` header htmx sends. The token is the session's,
 * or before sign-in the pre-session cookie's (a double submit: only our own page can read it).
 * Either missing or wrong: the 403 page, and nothing happens.
 */
export function csrfProtection(publicOrigin: string): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) {
      next();
      return;
    }
    if (requestOrigin(req) !== publicOrigin) {
      next(new AppError('forbidden', 'This request did not come from a console page (its origin is missing or foreign), so nothing was changed.'));
      return;
    }
    const body = req.body as Record<string, unknown> | undefined;
    const sent = typeof body?._csrf === 'string' ? body._csrf : req.get('x-csrf-token');
    const expected = localsOf(res).session?.csrf ?? readCookie(req, PRE_SESSION_CSRF_COOKIE);
    if (!sameToken(sent, expected)) {
      next(new AppError('forbidden', 'This form has expired or did not come from the console. Reload the page and try again; nothing was changed.'));
      return;
    }
    next();
  };
}
