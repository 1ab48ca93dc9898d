/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import { AppError } from '@preflight/http';
import { startSession } from '../auth/sessions.ts';
import { safeNext } from '../http/error-page.tsx';
import { sendHtml } from '../http/security.ts';
import { requireSession, sessionOf } from '../http/session.ts';
import { orgsOfUser } from '../storage/memberships.ts';
import { OrgChooserPage } from '../views/auth-pages.tsx';
import { render } from '../views/layout.tsx';
import { formField, type WebRoutes } from './context.ts';

/** The organisation chooser: a session is for one organisation; switching makes a new one. */
export const orgRoutes: WebRoutes = (router, deps) => {
  router.get('/orgs', requireSession, async (req, res) => {
    const session = sessionOf(res);
    const orgs = await orgsOfUser(deps.db, session.userId);
    sendHtml(res, 200, render(<OrgChooserPage session={session} orgs={orgs} current={session.orgId} next={safeNext(req.query.next)} />));
  });

  router.post('/orgs', requireSession, async (req, res) => {
    const session = sessionOf(res);
    const orgId = formField(req.body, 'orgId') ?? '';
    // The membership is read again: one removed or changed since sign-in counts as it is now.
    const switched = await startSession(res, deps, { id: session.userId, email: session.email }, { orgId, switching: true });
    if (switched.kind === 'not_a_member') throw new AppError('not_found', 'No such organisation.');
    res.redirect(303, safeNext(formField(req.body, 'next')) ?? '/console/campaigns');
  });
};
