import express, { type Router } from 'express';
import { pageContextOf, type PageDeps } from '../pages/context.ts';
import { pageRegistrations } from '../pages/index.ts';
import type { MemberAdminFetch } from '../gateway-client/fetch.ts';
import { csrfProtection } from '../http/csrf.ts';
import { consoleErrorPages, consoleNotFound } from '../http/error-page.tsx';
import { securityHeaders } from '../http/security.ts';
import { loadSession } from '../http/session.ts';
import { roleOf } from '../storage/memberships.ts';
import type { WebDeps } from './context.ts';
import { invitationRoutes } from './invitations.tsx';
import { orgRoutes } from './orgs.tsx';
import { signInRoutes } from './sign-in.tsx';
import { ssoRoutes } from './sso.tsx';
import { staticFiles } from './static.ts';

/** Forms are small; a console page never posts more. */
const FORM_LIMIT = '1mb';

/**
 * Everything under /console, in order: security headers, static files, form bodies, the
 * session, the CSRF check, the console's own pages (sign-in, invitations, organisations, SSO),
 * the pages (pages/index.ts), then the 404 and error pages.
 */
export function consoleRouter(deps: WebDeps, adminFetch: MemberAdminFetch): Router {
  const router = express.Router();
  router.use(securityHeaders);
  staticFiles(router);
  router.use(express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: 500 }));
  router.use(loadSession(deps.sessions, (userId, orgId) => roleOf(deps.db, userId, orgId)));
  router.use(csrfProtection(deps.publicOrigin));
  for (const routes of [signInRoutes, orgRoutes, invitationRoutes, ...(deps.oidc ? [ssoRoutes] : [])]) routes(router, deps);
  const pageDeps: PageDeps = { logger: deps.logger, context: pageContextOf(adminFetch), publicOrigin: deps.publicOrigin };
  for (const register of pageRegistrations) register(router, pageDeps);
  router.use(consoleNotFound());
  router.use(consoleErrorPages(deps.logger));
  return router;
}
