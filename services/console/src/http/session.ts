import type { RequestHandler, Response } from 'express';
import { AppError, type MemberRole } from '@preflight/http';
import type { Session, SessionStore } from '../sessions/store.ts';
import { clearSessionCookie, readCookie, SESSION_COOKIE } from './cookies.ts';

/** What the console's middleware leaves on `res.locals` for the handlers after it. */
export interface ConsoleLocals {
  /** The signed-in member's session, when the cookie names a live one. */
  session?: Session;
  /** The cookie's value (the session id), to end or replace the session. */
  sessionId?: string;
}

export const localsOf = (res: Response): ConsoleLocals => res.locals as ConsoleLocals;

/** The member's role in the organisation now, or undefined when they are no longer a member. */
export type CurrentRole = (userId: string, orgId: string) => Promise<MemberRole | undefined>;

/**
 * Reads the session cookie: a live session goes to `res.locals` (its idle time restarted); a
 * cookie naming an ended or revoked session is cleared. Anonymous requests pass on.
 * The membership is read on every request too (one primary-key lookup): a session whose role
 * is no longer the member's (changed or removed while a sign-in was in flight, or Redis was
 * away during a revocation) ends there, whatever the revocation managed.
 */
export function loadSession(store: SessionStore, currentRole: CurrentRole): RequestHandler {
  return (req, res, next) => {
    const id = readCookie(req, SESSION_COOKIE);
    if (!id) {
      next();
      return;
    }
    const load = async () => {
      const session = await store.get(id);
      if (session && (await currentRole(session.userId, session.orgId)) === session.role) {
        Object.assign(localsOf(res), { session, sessionId: id });
        return;
      }
      if (session) await store.destroy(id);
      clearSessionCookie(res);
    };
    load().then(() => next(), next);
  };
}

/** The session of a request that must be signed in (the error page sends the browser to sign-in). */
export function sessionOf(res: Response): Session {
  const session = localsOf(res).session;
  if (!session) throw new AppError('unauthorized', 'Sign in to continue.');
  return session;
}

/** Guard: the page needs a signed-in member. */
export const requireSession: RequestHandler = (_req, res, next) => {
  try {
    sessionOf(res);
    next();
  } catch (err) {
    next(err);
  }
};

/** Guard: the page is for Owners and Admins (keys, webhooks, integrations, members). */
export function requireRole(role: 'Admin'): RequestHandler {
  return (_req, res, next) => {
    try {
      const session = sessionOf(res);
      if (role === 'Admin' && session.role === 'Member') throw new AppError('forbidden', 'Only Owners and Admins of the organisation manage its settings.');
      next();
    } catch (err) {
      next(err);
    }
  };
}
