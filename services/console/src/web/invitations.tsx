/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { isUniqueViolation } from '@preflight/db';
import { acceptInvitation, InvitationGone } from '../auth/accept-invitation.ts';
import { hashPassword, passwordProblem, PASSWORD_MAX } from '../auth/passwords.ts';
import { startSession } from '../auth/sessions.ts';
import { sendHtml } from '../http/security.ts';
import { orgName } from '../storage/memberships.ts';
import { invitationByToken, invitationState, type InvitationRecord } from '../storage/invitations.ts';
import { insertUser, userByEmail, type UserRecord } from '../storage/users.ts';
import { InvitationGonePage, InvitationPage, NotAMemberPage } from '../views/auth-pages.tsx';
import { render } from '../views/layout.tsx';
import { formField, type WebDeps, type WebRoutes } from './context.ts';
import { checkCredentials, preSessionCsrf } from './sign-in.tsx';

const NAME_MAX = 200;

/** The invitation a link names while it can still be used; otherwise its page is sent and undefined returned. */
async function usableInvitation(deps: WebDeps, token: string, res: Response): Promise<InvitationRecord | undefined> {
  const invitation = await invitationByToken(deps.db, token);
  const reason = invitation ? invitationState(invitation) : 'unknown';
  if (reason === undefined) return invitation;
  sendHtml(res, reason === 'unknown' ? 404 : 410, render(<InvitationGonePage reason={reason} />));
  return undefined;
}

/** Invitation links: `/console/invitations/<token>` shows the invitation and accepts it. */
export const invitationRoutes: WebRoutes = (router, deps) => {
  const show = async (req: Request, res: Response, invitation: InvitationRecord, status: number, extra: { name?: string; errors?: Record<string, string[]>; error?: string } = {}) => {
    const existing = await userByEmail(deps.db, invitation.email);
    const view = { orgName: await orgName(deps.db, invitation.orgId), role: invitation.role, email: invitation.email };
    sendHtml(res, status, render(<InvitationPage token={String(req.params.token)} invitation={view} csrf={preSessionCsrf(req, res)} existingUser={existing !== undefined} {...extra} />));
  };

  router.get('/invitations/:token', async (req, res) => {
    const invitation = await usableInvitation(deps, String(req.params.token), res);
    if (invitation) await show(req, res, invitation, 200);
  });

  router.post('/invitations/:token', async (req, res) => {
    const invitation = await usableInvitation(deps, String(req.params.token), res);
    if (!invitation) return;
    const password = formField(req.body, 'password') ?? '';
    const existing = await userByEmail(deps.db, invitation.email);
    let user: UserRecord;
    try {
      if (existing) {
        const checked = password ? await checkCredentials(deps, invitation.email, password, req.ip ?? 'unknown') : undefined;
        if (!checked) {
          await show(req, res, invitation, 401, { errors: { password: ['That is not the password of this account.'] } });
          return;
        }
        user = await acceptInvitation(deps.db, invitation, async () => checked);
      } else {
        const name = (formField(req.body, 'name') ?? '').trim();
        const errors: Record<string, string[]> = {};
        if (!name) errors.name = ['Enter your name.'];
        else if (name.length > NAME_MAX) errors.name = [`Use at most ${NAME_MAX} characters.`];
        const weak = passwordProblem(password);
        if (weak) errors.password = [weak];
        if (Object.keys(errors).length > 0) {
          await show(req, res, invitation, 422, { name, errors });
          return;
        }
        const passwordHash = await hashPassword(password.slice(0, PASSWORD_MAX));
        user = await acceptInvitation(deps.db, invitation, (trx) => insertUser(trx, { id: randomUUID(), email: invitation.email, name, passwordHash }));
      }
    } catch (err) {
      if (err instanceof InvitationGone) {
        sendHtml(res, 410, render(<InvitationGonePage reason={err.reason} />));
        return;
      }
      // Someone made an account with this address meanwhile (another invitation): sign in instead.
      if (isUniqueViolation(err)) {
        await show(req, res, invitation, 409, { error: 'An account with this e-mail address was just created. Sign in with its password to accept.' });
        return;
      }
      throw err;
    }
    const signedIn = await startSession(res, deps, user, { orgId: invitation.orgId });
    if (signedIn.kind === 'not_a_member') {
      sendHtml(res, 403, render(<NotAMemberPage email={user.email} />));
      return;
    }
    res.redirect(303, '/console/');
  });
};
