import { describe, expect, inject, it } from 'vitest';
import { admin, call } from '../support/client.ts';
import { consoleClient, memberAuthorization } from '../support/console-client.ts';
import { expectProblem } from './problems.ts';

// The console through the gateway (docs/console.md): an organisation's first Owner invited by
// the operator, the members API reached with a console member token, and a role change that
// ends the member's session at once.
const sys = inject('system');
const asOperator = { token: sys.adminToken };

describe('console members through the gateway', () => {
  it('invites an Owner, who signs in; roles rule the members API; a role change ends the session', async () => {
    const org = await admin(sys).createOrg('Console e2e');
    const other = await admin(sys).createOrg('Console e2e other');
    const invited = await call(sys, 'POST', `/admin/v1/organizations/${org.id}/invitations`, { ...asOperator, body: { email: `owner.${org.id}@example.com`, role: 'Owner' } });
    expect(invited.status, invited.text).toBe(201);

    const owner = consoleClient(sys);
    const accepted = await owner.acceptInvitation(invited.body.url, 'Olive Owner', 'a long enough passphrase');
    expect(accepted.status, accepted.text).toBe(303);
    expect(owner.cookies.has('__Host-preflight_session')).toBe(true);
    const orgs = await owner.get('/console/orgs');
    expect(orgs.status).toBe(200);
    // The invitation named no organisation: the console learnt the name from the gateway at sign-in.
    expect(orgs.text).toContain('Console e2e');

    const listed = await call(sys, 'GET', `/admin/v1/organizations/${org.id}/members`, asOperator);
    expect(listed.status).toBe(200);
    const ownerId = listed.body[0].userId as string;
    const asOwner = { headers: { authorization: await memberAuthorization(sys, { orgId: org.id, userId: ownerId, role: 'Owner' }) } };

    // The Owner invites a Member through the gateway, as the console does.
    const memberInvite = await call(sys, 'POST', `/admin/v1/organizations/${org.id}/invitations`, { ...asOwner, body: { email: `member.${org.id}@example.com`, role: 'Member' } });
    expect(memberInvite.status, memberInvite.text).toBe(201);
    const member = consoleClient(sys);
    expect((await member.acceptInvitation(memberInvite.body.url, 'Mo Member', 'another long passphrase')).status).toBe(303);
    const members = await call(sys, 'GET', `/admin/v1/organizations/${org.id}/members`, asOwner);
    expect(members.body.map((m: { role: string }) => m.role)).toEqual(['Owner', 'Member']);
    const memberId = members.body[1].userId as string;

    // A Member may not manage people; nobody reaches another organisation's.
    const asMember = { headers: { authorization: await memberAuthorization(sys, { orgId: org.id, userId: memberId, role: 'Member' }) } };
    expectProblem(await call(sys, 'GET', `/admin/v1/organizations/${org.id}/members`, asMember), 403);
    expectProblem(await call(sys, 'GET', `/admin/v1/organizations/${other.id}/members`, asOwner), 404);
    expectProblem(await call(sys, 'GET', '/admin/v1/organizations', asOwner), 403);

    // Promoting the Member ends their session: the old cookie now leads to sign-in.
    expect((await member.get('/console/orgs')).status).toBe(200);
    const promoted = await call(sys, 'PATCH', `/admin/v1/organizations/${org.id}/members/${memberId}`, { ...asOwner, body: { role: 'Admin' } });
    expect(promoted.status, promoted.text).toBe(200);
    const after = await member.get('/console/orgs');
    expect(after.status).toBe(303);
    expect(after.location).toContain('/console/sign-in');
  });
});
