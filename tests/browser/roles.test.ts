import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { organisationState, postsAt, settled } from './cross-organisation.ts';
import { acceptInvitation, audit, browserSystem, fileIssue, launchBrowser, newPerson, operator, organisationWithOwner, PASSWORD, submitForm, visit, writeFigures } from './harness.ts';

/**
 * Who may do what in the console (issue 24): an Owner invites an Admin and a Member from the
 * members page; a Member files and works issues but has no settings; a member of another
 * organisation gets 404 on every page of the first one, and changes nothing.
 */

let sys: Awaited<ReturnType<typeof browserSystem>>;
let browser: Browser;
let receiver: Receiver;
let a: Awaited<ReturnType<typeof organisationWithOwner>>;
/** Organisation A's resources, one of each kind a console page shows. */
const ids: { campaign?: string; issue?: string; webhook?: string; integration?: string } = {};

/** Addresses unique to the run: users outlive an organisation, and a system may be reused (CONSOLE_TEST_SYSTEM). */
const RUN = Math.random().toString(36).slice(2, 8);
const MEMBER = `member-${RUN}@example.com`;
const ADMIN = `admin-${RUN}@example.com`;

const SETTINGS = ['/console/settings/api-keys', '/console/settings/webhooks', '/console/settings/integrations', '/console/settings/members'];

beforeAll(async () => {
  [sys, browser, receiver] = await Promise.all([browserSystem(), launchBrowser(), startReceiver()]);
  a = await organisationWithOwner(browser, sys, 'Roles');
  const site = await operator(sys, 'POST', `/admin/v1/organizations/${a.org.id}/sites`, { name: 'Shop' });
  ids.campaign = (await operator(sys, 'POST', `/admin/v1/sites/${site.id}/campaigns`, { name: 'Moonshot launch' })).id;
  ids.issue = (await operator(sys, 'POST', `/admin/v1/campaigns/${ids.campaign}/issues`, { title: 'Typo on the home page', severity: 'Low', type: 'ContentError' })).id;
  ids.webhook = (await operator(sys, 'POST', `/admin/v1/organizations/${a.org.id}/webhooks`, { url: receiver.url, name: 'Secret receiver' })).id;
  ids.integration = (await operator(sys, 'POST', `/admin/v1/organizations/${a.org.id}/integrations`, { kind: 'slack', name: 'Secret channel', config: {}, credentials: { webhookUrl: receiver.url } })).id;
}, 180_000);

afterAll(async () => {
  writeFigures('console-roles-figures.json');
  await browser?.close();
  await receiver?.close();
  await sys?.stop();
});

/** Invites someone from the members page and returns the link shown once. */
async function inviteFromPage(email: string, role: 'Admin' | 'Member'): Promise<string> {
  await visit(a.page, '/console/settings/members');
  const form = a.page.getByRole('form', { name: 'Invite someone' });
  await form.getByLabel('E-mail').fill(email);
  await form.getByLabel('Role').selectOption(role);
  await form.getByRole('button', { name: 'Create invitation' }).click();
  return (await a.page.locator('#invitation-link').textContent())!;
}

describe('an Owner invites an Admin and a Member', () => {
  let member: Awaited<ReturnType<typeof newPerson>>;
  let admin: Awaited<ReturnType<typeof newPerson>>;

  it('sees the invitations pending, and each person joins with their link', async () => {
    const memberLink = await inviteFromPage(MEMBER, 'Member');
    await expect.poll(() => a.page.getByRole('table', { name: 'Pending invitations' }).getByRole('row').filter({ hasText: MEMBER }).count()).toBe(1);
    await audit(a.page, 'members');
    const adminLink = await inviteFromPage(ADMIN, 'Admin');
    member = await newPerson(browser, sys);
    admin = await newPerson(browser, sys);
    await acceptInvitation(member.page, memberLink, { name: 'Mel Member', password: PASSWORD });
    await acceptInvitation(admin.page, adminLink, { name: 'Ada Admin', password: PASSWORD });
    await visit(a.page, '/console/settings/members');
    const members = a.page.getByRole('table', { name: 'Members' });
    await expect.poll(() => members.getByRole('row').filter({ hasText: 'Mel Member' }).textContent()).toContain('Member');
    await expect.poll(() => members.getByRole('row').filter({ hasText: 'Ada Admin' }).textContent()).toContain('Admin');
    expect(await a.page.getByRole('table', { name: 'Pending invitations' }).getByRole('row').filter({ hasText: 'example.com' }).count()).toBe(0);
  });

  afterAll(async () => {
    await member?.context.close();
    await admin?.context.close();
  });

  it('the invitation link works once', async () => {
    const link = await inviteFromPage(`late-${RUN}@example.com`, 'Member');
    const late = await newPerson(browser, sys);
    await acceptInvitation(late.page, link, { name: 'Late', password: PASSWORD });
    const again = await newPerson(browser, sys);
    await again.page.goto(link);
    await expect.poll(() => again.page.getByText('already been used').count()).toBe(1);
    await late.context.close();
    await again.context.close();
  });

  it('a Member sees no settings, gets the 403 page on them, and files and works issues', async () => {
    const { page } = member;
    await visit(page, '/console/campaigns');
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).count()).toBe(0);
    for (const path of SETTINGS) await visit(page, path, 403);
    await audit(page, 'forbidden');

    await visit(page, `/console/campaigns/${ids.campaign}`);
    expect(await page.getByRole('button', { name: 'Launch' }).count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Add a task' }).count()).toBe(0);
    await page.getByRole('link', { name: 'File an issue' }).click();
    await fileIssue(page, { title: 'Filed by a Member', severity: 'Medium', type: 'UxFeedback' });
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/console\/issues\//);
    await page.getByRole('button', { name: 'InProgress', exact: true }).click();
    await expect.poll(() => page.getByRole('table', { name: 'History' }).getByRole('row').filter({ hasText: 'InProgress' }).count()).toBe(1);
  });

  it('an Admin manages settings but cannot make an Owner', async () => {
    const { page } = admin;
    await visit(page, '/console/settings/members');
    const roles = await page.getByRole('form', { name: 'Invite someone' }).getByLabel('Role').locator('option').allTextContents();
    expect(roles).toEqual(['Admin', 'Member']);
    await visit(page, '/console/settings/api-keys');
    await submitForm(page, 'Create a key', { Name: 'Admin key' }, 'Create key');
    await expect.poll(() => page.locator('#new-key').count()).toBe(1);
  });

  it('a role change signs the member out at once', async () => {
    await visit(a.page, '/console/settings/members');
    const form = a.page.getByRole('form', { name: `Change ${MEMBER}'s role` });
    await form.getByLabel(`Role of ${MEMBER}`).selectOption('Admin');
    await form.getByRole('button', { name: 'Change role' }).click();
    await member.page.goto('/console/campaigns');
    await expect.poll(() => new URL(member.page.url()).pathname).toBe('/console/sign-in');
  });
});

describe('a member of another organisation', () => {
  it('gets 404 on every page of the first organisation, and changes nothing', async () => {
    const b = await organisationWithOwner(browser, sys, 'Other');
    const pages = [
      `/console/campaigns/${ids.campaign}`,
      `/console/campaigns/${ids.campaign}/readiness`,
      `/console/campaigns/${ids.campaign}/issues/new`,
      `/console/issues/${ids.issue}`,
      `/console/settings/webhooks/${ids.webhook}`,
      `/console/settings/webhooks/${ids.webhook}/deliveries`,
      `/console/settings/integrations/${ids.integration}`,
    ];
    for (const path of pages) {
      await visit(b.page, path, 404);
      const html = await b.page.content();
      for (const secret of ['Moonshot launch', 'Typo on the home page', 'Secret receiver', 'Secret channel']) expect(html, path).not.toContain(secret);
    }
    await audit(b.page, 'not-found');

    // Every form the console has that names a resource (a path parameter), posted at A's from B's page
    // (B's session and CSRF token, the console's origin), answers 404 and changes nothing.
    const posts = await postsAt(sys, a.org.id, ids);
    const before = await settled(() => organisationState(sys, a.org.id, ids));
    await visit(b.page, '/console/campaigns');
    const csrf = await b.page.locator('input[name="_csrf"]').first().inputValue();
    for (const [path, fields] of posts) {
      const body = new URLSearchParams({ _csrf: csrf, ...fields }).toString();
      // Posted from inside the page: the browser sends its cookie and Origin as a form would (a 303 would read as 0).
      const status = await b.page.evaluate<number>(
        `fetch(${JSON.stringify(path)}, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: ${JSON.stringify(body)} }).then((r) => r.status)`,
      );
      expect(status, path).toBe(404);
    }
    expect(await organisationState(sys, a.org.id, ids)).toEqual(before);
  });
});
