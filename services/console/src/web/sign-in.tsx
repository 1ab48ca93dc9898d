/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppError } from '@preflight/http';
import { checkPassword } from '../auth/passwords.ts';
import { endSession, startSession } from '../auth/sessions.ts';
import { PRE_SESSION_CSRF_COOKIE, readCookie, setPreSessionCsrfCookie } from '../http/cookies.ts';
import { safeNext } from '../http/error-page.tsx';
import { sendHtml } from '../http/security.ts';
import { localsOf, requireSession } from '../http/session.ts';
import { normaliseEmail, userByEmail } from '../storage/users.ts';
import { NotAMemberPage, SignInPage } from '../views/auth-pages.tsx';
import { render } from '../views/layout.tsx';
import { formField, type WebDeps, type WebRoutes } from './context.ts';

/**
 * The CSRF token for a form of a page anyone may open (sign-in, invitations): the session's
 * when there is one (the check expects it then), else the pre-session cookie's, set when absent.
 */
export function preSessionCsrf(req: Request, res: Response): string {
  const session = localsOf(res).session;
  if (session) return session.csrf;
  const existing = readCookie(req, PRE_SESSION_CSRF_COOKIE);
  if (existing && existing.length >= 32) return existing;
  const token = randomBytes(32).toString('base64url');
  setPreSessionCsrfCookie(res, token);
  return token;
}

/**
 * Checks a password sign-in under the limits: 429 when they are used up, undefined for wrong
 * credentials (counted), the user otherwise. An unknown e-mail costs the same time as a wrong password.
 */
export async function checkCredentials(deps: WebDeps, email: string, password: string, address: string) {
  try {
    await deps.limits.admit(email, address);
  } catch (err) {
    if (err instanceof AppError && err.code === 'rate_limited') deps.metrics.signIns.inc({ outcome: 'rate_limited' });
    throw err;
  }
  const user = await userByEmail(deps.db, email);
  if (!(await checkPassword(user?.passwordHash, password)) || !user) {
    await deps.limits.failed(email, address);
    deps.metrics.signIns.inc({ outcome: 'failure' });
    return undefined;
  }
  await deps.limits.succeeded(email, address);
  return user;
}

/** Where a browser goes once signed in: the chooser first when the user has several organisations. */
export function afterSignIn(choose: boolean, next: string | undefined): string {
  if (choose) return `/console/orgs${next ? `?next=${encodeURIComponent(next)}` : ''}`;
  return next ?? '/console/';
}

/** Sign-in with e-mail and password, sign-out, and `/console/` itself. */
export const signInRoutes: WebRoutes = (router, deps) => {
  const sso = deps.oidc?.label;

  router.get('/', requireSession, (_req, res) => {
    res.redirect(303, '/console/campaigns');
  });

  router.get('/sign-in', (req, res) => {
    const next = safeNext(req.query.next);
    if (localsOf(res).session) {
      res.redirect(303, next ?? '/console/');
      return;
    }
    sendHtml(res, 200, render(<SignInPage csrf={preSessionCsrf(req, res)} next={next} sso={sso} />));
  });

  router.post('/sign-in', async (req, res) => {
    const email = normaliseEmail(formField(req.body, 'email') ?? '');
    const password = formField(req.body, 'password') ?? '';
    const next = safeNext(formField(req.body, 'next'));
    const again = (status: number, error: string) =>
      sendHtml(res, status, render(<SignInPage csrf={preSessionCsrf(req, res)} email={email} next={next} sso={sso} error={error} />));
    if (!email || !password) {
      again(422, 'Enter your e-mail address and your password.');
      return;
    }
    const user = await checkCredentials(deps, email, password, req.ip ?? 'unknown');
    if (!user) {
      again(401, 'That e-mail address and password do not match an account.');
      return;
    }
    const signedIn = await startSession(res, deps, user);
    if (signedIn.kind === 'not_a_member') {
      sendHtml(res, 403, render(<NotAMemberPage email={user.email} />));
      return;
    }
    res.redirect(303, afterSignIn(signedIn.choose, next));
  });

  router.post('/sign-out', async (_req, res) => {
    await endSession(res, deps.sessions);
    res.redirect(303, '/console/sign-in');
  });
};
