/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Response } from 'express';
import { pathId } from '@preflight/http';
import type { CreatedInvitation, MemberRole } from '../../gateway-client/api-types.ts';
import type { FormProblem, FormValues } from '../components/form.tsx';
import { requireRole, type PageRegistration } from '../context.ts';
import { backTo, Form, memberOf, show, submit, type Member } from '../page.tsx';
import { MembersPage } from './members-view.tsx';

export const MEMBERS_PATH = '/console/settings/members';

async function showMembers(res: Response, m: Member, state: { invited?: CreatedInvitation; problem?: FormProblem; values?: FormValues; status?: number } = {}) {
  const [members, invitations] = await Promise.all([m.api.members.list(), m.api.members.invitations()]);
  show(
    res,
    m,
    { title: 'Members', path: MEMBERS_PATH, status: state.status },
    <MembersPage members={members} invitations={invitations} me={{ userId: m.session.userId, role: m.session.role }} csrf={m.session.csrf} {...state} />,
  );
}

/** Settings → Members (Owners and Admins), through the console's own members API on the gateway. */
export const memberPages: PageRegistration = (router, deps) => {
  const admin = requireRole('Admin');

  router.get('/settings/members', admin, async (_req, res) => {
    await showMembers(res, memberOf(deps.context(res)));
  });

  router.post('/settings/members/invitations', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    const form = Form.of(req);
    await submit(
      () => m.api.members.invite({ email: form.text('email'), role: form.text('role') as MemberRole }),
      (invited) => showMembers(res, m, { invited, status: 201 }),
      (problem, status) => showMembers(res, m, { problem, status, values: form.values() }),
      'invite',
    );
  });

  router.post('/settings/members/invitations/:invitationId/revoke', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    await m.api.members.revokeInvitation(pathId(req.params.invitationId, 'invitation'));
    backTo(res, MEMBERS_PATH);
  });

  router.post('/settings/members/:userId/role', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    const userId = pathId(req.params.userId, 'member');
    const form = Form.of(req);
    await submit(
      () => m.api.members.changeRole(userId, form.text('role') as MemberRole),
      () => backTo(res, MEMBERS_PATH),
      (problem, status) => showMembers(res, m, { problem, status }),
      `member-${userId}`,
    );
  });

  router.post('/settings/members/:userId/remove', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    const userId = pathId(req.params.userId, 'member');
    await submit(
      () => m.api.members.remove(userId),
      () => backTo(res, MEMBERS_PATH),
      (problem, status) => showMembers(res, m, { problem, status }),
      `member-${userId}`,
    );
  });
};
