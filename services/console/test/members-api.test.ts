import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asMember, asOperator, expectProblem, newOrg, ORIGIN, startHarness, type Harness } from './harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const invitations = (orgId: string) => `/admin/v1/organizations/${orgId}/invitations`;
const members = (orgId: string) => `/admin/v1/organizations/${orgId}/members`;

describe('invitations API', () => {
  it('lets the operator invite the first Owner, with the one-time link only in the answer', async () => {
    const orgId = randomUUID();
    const created = await h.call('POST', invitations(orgId), { as: asOperator, body: { email: ' First.Owner@Example.com ', role: 'Owner', organizationName: 'Delta Inc' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'first.owner@example.com', role: 'Owner', invitedBy: null });
    expect(created.body.url).toMatch(new RegExp(`^${ORIGIN}/console/invitations/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(created.body.expiresAt) - Date.parse(created.body.createdAt)).toBe(7 * 86_400_000);

    const list = await h.call('GET', invitations(orgId), { as: asOperator });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ id: created.body.id, email: 'first.owner@example.com', role: 'Owner', invitedBy: null, createdAt: created.body.createdAt, expiresAt: created.body.expiresAt }]);
    const page = await h.browser().get(new URL(created.body.url).pathname);
    expect(page.text).toContain('Join Delta Inc');
  });

  it('refuses bad input with a field map and stores nothing', async () => {
    const orgId = randomUUID();
    const bad = expectProblem(await h.call('POST', invitations(orgId), { as: asOperator, body: { email: 'not-an-address', role: 'King', extra: 1 } }), 422);
    expect(Object.keys(bad.errors).sort()).toEqual(['email', 'extra', 'role']);
    expect((await h.call('GET', invitations(orgId), { as: asOperator })).body).toEqual([]);
  });

  it('lets an Admin invite Admins and Members, never an Owner, and never name the organisation', async () => {
    const orgId = await newOrg(h);
    const admin = await h.addUser({ orgId, role: 'Admin' });
    const as = asMember(orgId, admin.id, 'Admin');
    expect((await h.call('POST', invitations(orgId), { as, body: { email: 'a@example.com', role: 'Admin' } })).body.invitedBy).toBe(admin.id);
    expectProblem(await h.call('POST', invitations(orgId), { as, body: { email: 'o@example.com', role: 'Owner' } }), 403);
    expectProblem(await h.call('POST', invitations(orgId), { as, body: { email: 'n@example.com', role: 'Member', organizationName: 'Renamed' } }), 422);
    expect((await h.call('GET', invitations(orgId), { as })).body.map((i: { email: string }) => i.email)).toEqual(['a@example.com']);
  });

  it('refuses a Member, and answers 404 for another organisation', async () => {
    const orgId = await newOrg(h);
    const otherOrg = await newOrg(h);
    const member = await h.addUser({ orgId, role: 'Member' });
    const owner = await h.addUser({ orgId, role: 'Owner' });
    expectProblem(await h.call('POST', invitations(orgId), { as: asMember(orgId, member.id, 'Member'), body: { email: 'x@example.com', role: 'Member' } }), 403);
    expectProblem(await h.call('GET', members(orgId), { as: asMember(orgId, member.id, 'Member') }), 403);
    const foreign = asMember(orgId, owner.id, 'Owner');
    expectProblem(await h.call('POST', invitations(otherOrg), { as: foreign, body: { email: 'x@example.com', role: 'Member' } }), 404);
    expectProblem(await h.call('GET', members(otherOrg), { as: foreign }), 404);
    expectProblem(await h.call('GET', invitations(otherOrg), { as: foreign }), 404);
    expect((await h.call('GET', invitations(otherOrg), { as: asOperator })).body).toEqual([]);
  });

  it('revokes a pending invitation (404 for another organisation\'s or an unknown one), and the link stops working', async () => {
    const orgId = await newOrg(h);
    const otherOrg = await newOrg(h);
    const created = await h.call('POST', invitations(orgId), { as: asOperator, body: { email: 'r@example.com', role: 'Member' } });
    const path = new URL(created.body.url).pathname;
    expectProblem(await h.call('DELETE', `${invitations(otherOrg)}/${created.body.id}`, { as: asOperator }), 404);
    expectProblem(await h.call('DELETE', `${invitations(orgId)}/${randomUUID()}`, { as: asOperator }), 404);
    expect((await h.call('DELETE', `${invitations(orgId)}/${created.body.id}`, { as: asOperator })).status).toBe(204);
    expectProblem(await h.call('DELETE', `${invitations(orgId)}/${created.body.id}`, { as: asOperator }), 404);
    const page = await h.browser().get(path);
    expect(page.status).toBe(410);
    expect(page.text).toContain('This invitation was withdrawn.');
  });

  it('refuses to invite someone who is already a member (409)', async () => {
    const orgId = await newOrg(h);
    const user = await h.addUser({ orgId, role: 'Member' });
    const reply = expectProblem(await h.call('POST', invitations(orgId), { as: asOperator, body: { email: user.email.toUpperCase(), role: 'Admin' } }), 409);
    expect(reply.detail).toContain('already a member');
  });
});

describe('members API', () => {
  it('lists the members with their roles', async () => {
    const orgId = await newOrg(h);
    const owner = await h.addUser({ orgId, role: 'Owner', name: 'Olive Owner' });
    const member = await h.addUser({ orgId, role: 'Member' });
    const list = await h.call('GET', members(orgId), { as: asMember(orgId, owner.id, 'Owner') });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { userId: owner.id, email: owner.email, name: 'Olive Owner', role: 'Owner', joinedAt: expect.any(String), lastSignInAt: null },
      { userId: member.id, email: member.email, name: 'Test User', role: 'Member', joinedAt: expect.any(String), lastSignInAt: null },
    ]);
  });

  it('changes roles by the rules: Admins never touch Owners, the last Owner stays', async () => {
    const orgId = await newOrg(h);
    const owner = await h.addUser({ orgId, role: 'Owner' });
    const admin = await h.addUser({ orgId, role: 'Admin' });
    const member = await h.addUser({ orgId, role: 'Member' });
    const asAdmin = asMember(orgId, admin.id, 'Admin');
    const asOwner = asMember(orgId, owner.id, 'Owner');

    const promoted = await h.call('PATCH', `${members(orgId)}/${member.id}`, { as: asAdmin, body: { role: 'Admin' } });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ userId: member.id, role: 'Admin' });
    expectProblem(await h.call('PATCH', `${members(orgId)}/${member.id}`, { as: asAdmin, body: { role: 'Owner' } }), 403);
    expectProblem(await h.call('PATCH', `${members(orgId)}/${owner.id}`, { as: asAdmin, body: { role: 'Member' } }), 403);
    expectProblem(await h.call('DELETE', `${members(orgId)}/${owner.id}`, { as: asAdmin }), 403);

    const last = expectProblem(await h.call('PATCH', `${members(orgId)}/${owner.id}`, { as: asOwner, body: { role: 'Admin' } }), 409);
    expect(last.detail).toContain('last Owner');
    expect(expectProblem(await h.call('DELETE', `${members(orgId)}/${owner.id}`, { as: asOperator }), 409).detail).toContain('last Owner');

    expect((await h.call('PATCH', `${members(orgId)}/${admin.id}`, { as: asOwner, body: { role: 'Owner' } })).status).toBe(200);
    expect((await h.call('PATCH', `${members(orgId)}/${owner.id}`, { as: asOwner, body: { role: 'Member' } })).body.role).toBe('Member');
    expectProblem(await h.call('PATCH', `${members(orgId)}/${member.id}`, { as: asOwner, body: { role: 'Boss' } }), 422);
    const roles = (await h.call('GET', members(orgId), { as: asOperator })).body.map((m: { role: string }) => m.role);
    expect(roles).toEqual(['Member', 'Owner', 'Admin']);
  });

  it('removes a member (204) and answers 404 for an unknown one or another organisation\'s', async () => {
    const orgId = await newOrg(h);
    const otherOrg = await newOrg(h);
    const owner = await h.addUser({ orgId, role: 'Owner' });
    const member = await h.addUser({ orgId, role: 'Member' });
    const stranger = await h.addUser({ orgId: otherOrg, role: 'Member' });
    const as = asMember(orgId, owner.id, 'Owner');
    expectProblem(await h.call('DELETE', `${members(orgId)}/${stranger.id}`, { as }), 404);
    expectProblem(await h.call('PATCH', `${members(orgId)}/${stranger.id}`, { as, body: { role: 'Admin' } }), 404);
    expectProblem(await h.call('DELETE', `${members(orgId)}/not-a-uuid`, { as }), 404);
    expect((await h.call('DELETE', `${members(orgId)}/${member.id}`, { as })).status).toBe(204);
    expectProblem(await h.call('DELETE', `${members(orgId)}/${member.id}`, { as }), 404);
    expect((await h.call('GET', members(otherOrg), { as: asOperator })).body.map((m: { userId: string }) => m.userId)).toEqual([stranger.id]);
  });

  it('ends every session of a member whose role changes or who is removed', async () => {
    const orgId = await newOrg(h);
    const owner = await h.addUser({ orgId, role: 'Owner' });
    const admin = await h.addUser({ orgId, role: 'Admin' });
    const browser = h.browser();
    await browser.signIn(admin.email, admin.password);
    expect((await browser.get('/console/orgs')).status).toBe(200);
    const revoked = await h.metric('console_sessions_revoked_total');

    await h.call('PATCH', `${members(orgId)}/${admin.id}`, { as: asMember(orgId, owner.id, 'Owner'), body: { role: 'Member' } });
    const after = await browser.get('/console/orgs');
    expect(after.status).toBe(303);
    expect(after.location).toContain('/console/sign-in');
    expect(await h.metric('console_sessions_revoked_total')).toBe(revoked + 1);

    // Signed in again, as a Member now; then removed: refused again.
    await browser.signIn(admin.email, admin.password);
    const page = await browser.get('/console/orgs');
    expect(page.text).not.toContain('/console/settings/');
    await h.call('DELETE', `${members(orgId)}/${admin.id}`, { as: asOperator });
    expect((await browser.get('/console/orgs')).status).toBe(303);
  });
});
