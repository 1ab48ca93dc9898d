import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asOperator, newOrg, startHarness, type Harness } from './harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

/** A new invitation's page path (`/console/invitations/<token>`). */
async function invite(orgId: string, email: string, role = 'Member'): Promise<string> {
  const created = await h.call('POST', `/admin/v1/organizations/${orgId}/invitations`, { as: asOperator, body: { email, role } });
  expect(created.status).toBe(201);
  return new URL(created.body.url).pathname;
}

describe('invitation links', () => {
  it('lets a new user set a name and password, join, and be signed in; the link then works no more', async () => {
    const orgId = await newOrg(h, 'Epsilon GmbH');
    const link = await invite(orgId, 'new.person@example.com', 'Admin');
    const browser = h.browser();
    const page = await browser.get(link);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Join Epsilon GmbH');
    expect(page.text).toContain('<strong>Admin</strong>');
    expect(page.text).toContain('new.person@example.com');

    const short = await browser.post(link, { name: 'New Person', password: 'too short' });
    expect(short.status).toBe(422);
    expect(short.text).toContain('Use at least 12 characters.');
    expect(await h.db.selectFrom('users').select('id').where('email', '=', 'new.person@example.com').execute()).toEqual([]);

    const accepted = await browser.post(link, { name: 'New Person', password: 'a long enough passphrase' });
    expect(accepted.status).toBe(303);
    expect(accepted.location).toBe('/console/');
    const chooser = await browser.get('/console/orgs');
    expect(chooser.status).toBe(200);
    expect(chooser.text).toContain('Epsilon GmbH');
    expect(chooser.text).toContain('href="/console/settings/members"');

    const [user] = await h.db.selectFrom('users').selectAll().where('email', '=', 'new.person@example.com').execute();
    expect(user!.name).toBe('New Person');
    expect(user!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

    const again = await h.browser().get(link);
    expect(again.status).toBe(410);
    expect(again.text).toContain('already been used');
    // The page was open in another tab: its form, sent again, is refused too.
    const replay = await browser.post(link, { name: 'Someone Else', password: 'another long passphrase' });
    expect(replay.status).toBe(410);
    // And the new account signs in with its password.
    expect((await h.browser().signIn('new.person@example.com', 'a long enough passphrase')).status).toBe(303);
  });

  it('lets an existing user accept by signing in with their password', async () => {
    const home = await newOrg(h, 'Home Org');
    const joining = await newOrg(h, 'Joining Org');
    const user = await h.addUser({ orgId: home, role: 'Owner' });
    const link = await invite(joining, user.email, 'Member');
    const browser = h.browser();
    const page = await browser.get(link);
    expect(page.text).toContain('Sign in with its password to accept');
    expect(page.text).not.toContain('name="name"');

    const wrong = await browser.post(link, { password: 'not my password' });
    expect(wrong.status).toBe(401);
    expect(await h.db.selectFrom('memberships').select('org_id').where('user_id', '=', user.id).execute()).toEqual([{ org_id: home }]);

    const accepted = await browser.post(link, { password: user.password });
    expect(accepted.status).toBe(303);
    const chooser = await browser.get('/console/orgs');
    // The session is for the organisation just joined, as a Member.
    expect(chooser.text).toMatch(/Joining Org<\/span>/);
    expect(chooser.text).not.toContain('/console/settings/');
    expect(chooser.text).toContain('Home Org');
  });

  it('shows a clear page for an expired, revoked or unknown link', async () => {
    const orgId = await newOrg(h);
    const expired = await invite(orgId, 'late@example.com');
    const browser = h.browser();
    expect((await browser.get(expired)).status).toBe(200);
    await h.db.updateTable('invitations').set({ expires_at: new Date(Date.now() - 1000) }).where('email', '=', 'late@example.com').execute();
    const page = await h.browser().get(expired);
    expect(page.status).toBe(410);
    expect(page.text).toContain('This invitation has expired.');
    const post = await browser.post(expired, { name: 'Late Person', password: 'a long enough passphrase' });
    expect(post.status).toBe(410);
    expect(await h.db.selectFrom('users').select('id').where('email', '=', 'late@example.com').execute()).toEqual([]);

    const unknown = await h.browser().get('/console/invitations/not-a-real-token');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('This invitation link is not valid.');
  });
});
