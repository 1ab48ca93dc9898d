/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { AppError } from '@preflight/http';
import type { Logger } from '@preflight/log';
import { acceptIn, InvitationGone } from '../auth/accept-invitation.ts';
import { startSession } from '../auth/sessions.ts';
import type { OidcSettings } from '../config.ts';
import { safeNext } from '../http/error-page.tsx';
import { sendHtml } from '../http/security.ts';
import { pendingInvitationsFor } from '../storage/invitations.ts';
import { linkIdentity, userOfIdentity } from '../storage/oidc-identities.ts';
import { insertUser, normaliseEmail, userByEmail, userById, type UserRecord } from '../storage/users.ts';
import { NotAMemberPage } from '../views/auth-pages.tsx';
import { render } from '../views/layout.tsx';
import { ProblemPage } from '../views/problem-page.tsx';
import type { WebDeps, WebRoutes } from './context.ts';
import { afterSignIn } from './sign-in.tsx';

/** How long a browser has between leaving for the identity provider and coming back. */
const PENDING_SECONDS = 600;

/** What the console reads of a verified identity (the ID token's claims, or userinfo's). */
interface Identity {
  sub: string;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
}

interface Pending {
  verifier: string;
  nonce: string;
  next: string | undefined;
}

/**
 * The identity provider's configuration, discovered on first use and kept; a failed discovery
 * is tried again by the next sign-in rather than stopping the console. Plain-http issuers are
 * allowed only on loopback (a local or test provider).
 */
function providerOf(settings: OidcSettings, logger: Logger): () => Promise<oidc.Configuration> {
  let config: Promise<oidc.Configuration> | undefined;
  const issuer = new URL(settings.issuer);
  const loopback = issuer.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
  return () => {
    config ??= oidc
      .discovery(issuer, settings.clientId, settings.clientSecret, undefined, loopback ? { execute: [oidc.allowInsecureRequests] } : {})
      .catch((err: unknown) => {
        config = undefined;
        logger.warn({ issuer: settings.issuer, err: (err as Error).message }, 'OIDC discovery failed');
        throw new AppError('dependency_unavailable', 'Single sign-on is unavailable just now; try again shortly or sign in with your password.');
      });
    return config;
  };
}

/**
 * The user a verified identity signs in: the one linked to (issuer, subject), else the account
 * with the verified e-mail (then linked), else a new account when the e-mail holds a pending
 * invitation. Pending invitations for the e-mail are accepted either way. No invitation and no
 * account: nobody (no self sign-up).
 */
async function userForIdentity(deps: WebDeps, issuer: string, claims: Identity): Promise<UserRecord | undefined> {
  const linked = await userOfIdentity(deps.db, issuer, claims.sub);
  const email = typeof claims.email === 'string' && claims.email_verified === true ? normaliseEmail(claims.email) : undefined;
  const user = linked ? await userById(deps.db, linked) : email ? await userByEmail(deps.db, email) : undefined;
  const invitations = email ? await pendingInvitationsFor(deps.db, email) : [];
  if (!user && invitations.length === 0) return undefined;
  return deps.db.transaction().execute(async (trx) => {
    const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : email!;
    const member = user ?? (await insertUser(trx, { id: randomUUID(), email: email!, name, passwordHash: null }));
    await linkIdentity(trx, { issuer, subject: claims.sub, userId: member.id });
    for (const invitation of invitations) {
      try {
        await acceptIn(trx, invitation, member.id);
      } catch (err) {
        // Used up meanwhile: the others still count.
        if (!(err instanceof InvitationGone)) throw err;
      }
    }
    return member;
  });
}

/** Single sign-on through OpenID Connect: authorization code with PKCE, state and nonce (docs/console.md). */
export const ssoRoutes: WebRoutes = (router, deps) => {
  const settings = deps.oidc!;
  const provider = providerOf(settings, deps.logger);
  const pendingKey = (state: string) => `${deps.redisPrefix}console:sso:${state}`;

  router.get('/sso/start', async (req, res) => {
    const config = await provider();
    const pending: Pending = { verifier: oidc.randomPKCECodeVerifier(), nonce: oidc.randomNonce(), next: safeNext(req.query.next) };
    const state = oidc.randomState();
    await deps.redis.set(pendingKey(state), JSON.stringify(pending), 'EX', PENDING_SECONDS);
    const target = oidc.buildAuthorizationUrl(config, {
      redirect_uri: settings.redirectUrl,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state,
      nonce: pending.nonce,
    });
    res.redirect(303, target.href);
  });

  router.get('/sso/callback', async (req, res) => {
    const state = typeof req.query.state === 'string' ? req.query.state : '';
    // Read and deleted at once: a state is good for one callback.
    const raw = state ? await deps.redis.getdel(pendingKey(state)) : null;
    const failed = (detail: string) => {
      deps.metrics.signIns.inc({ outcome: 'failure' });
      sendHtml(res, 400, render(<ProblemPage status={400} detail={detail} />));
    };
    if (!raw) {
      failed('This single sign-on attempt has expired or was already used. Start again from the sign-in page.');
      return;
    }
    const pending = JSON.parse(raw) as Pending;
    const config = await provider();
    const current = new URL(settings.redirectUrl);
    current.search = new URL(req.originalUrl, current).search;
    let claims: Identity | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: pending.verifier, expectedState: state, expectedNonce: pending.nonce, idTokenExpected: true });
      claims = tokens.claims();
      // Providers that keep the e-mail out of the ID token (it was asked for by scope) give it at userinfo.
      if (claims && claims.email === undefined && tokens.access_token) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        claims = { sub: claims.sub, email: info.email, email_verified: info.email_verified, name: claims.name ?? info.name };
      }
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'single sign-on refused');
    }
    if (!claims) {
      failed('Single sign-on did not succeed. Try again, or sign in with your password.');
      return;
    }
    const user = await userForIdentity(deps, config.serverMetadata().issuer, claims);
    if (!user) {
      deps.metrics.signIns.inc({ outcome: 'not_a_member' });
      sendHtml(res, 403, render(<NotAMemberPage email={typeof claims.email === 'string' ? claims.email : claims.sub} />));
      return;
    }
    const signedIn = await startSession(res, deps, user);
    if (signedIn.kind === 'not_a_member') {
      sendHtml(res, 403, render(<NotAMemberPage email={user.email} />));
      return;
    }
    res.redirect(303, afterSignIn(signedIn.choose, pending.next));
  });
};
