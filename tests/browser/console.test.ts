import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGithub, type FakeGithub } from '@preflight/provider-fakes';
import { eventually } from '@preflight/testing';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { audit, browserSystem, fileIssue, launchBrowser, operator, organisationWithOwner, pageFigures, submitForm, visit, writeFigures } from './harness.ts';

/**
 * An organisation runs itself from the console (issue 24): its Owner, invited by the operator,
 * signs in, creates a key and uses it on /api/v1, subscribes a webhook receiver, files an issue
 * and watches its delivery arrive in the log without reloading, sees the endpoint disabled by
 * failures and re-enables it, works issues, campaigns and the readiness report, connects a chat
 * channel. Every page is checked with axe at desktop and phone size.
 */

let sys: Awaited<ReturnType<typeof browserSystem>>;
let browser: Browser;
let receiver: Receiver;
let github: FakeGithub;
let owner: Awaited<ReturnType<typeof organisationWithOwner>>;
let page: Page;
const state: { signoffCampaignId?: string; campaignId?: string; apiKey?: string; webhookId?: string; secret?: string; issueId?: string } = {};

const ok = (res: import('node:http').ServerResponse) => res.writeHead(200, { 'content-type': 'text/plain' }).end('received');
const failing = (res: import('node:http').ServerResponse) => res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver is down');

beforeAll(async () => {
  [sys, browser, receiver, github] = await Promise.all([browserSystem(), launchBrowser(), startReceiver(ok), startFakeGithub()]);
  owner = await organisationWithOwner(browser, sys, 'Console');
  page = owner.page;
}, 180_000);

afterAll(async () => {
  writeFigures('console-pages-figures.json');
  await browser?.close();
  await receiver?.close();
  await github?.close();
  await sys?.stop();
});

describe('the Owner of a new organisation', () => {
  it('lands on the campaigns page, with under 100 KB of JavaScript', async () => {
    await visit(page, '/console/campaigns');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Campaigns');
    await expect.poll(() => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).count()).toBe(1);
    const first = await pageFigures(page, 'first-page');
    expect(first.scripts).toBeGreaterThanOrEqual(1);
    expect(first.scriptBytes).toBeLessThan(100 * 1024);
    await audit(page, 'campaigns-empty', { screenshot: false });
  });

  it('creates a site and a campaign', async () => {
    await submitForm(page, 'New site', { Name: 'Shop', URL: 'https://shop.example.com' }, 'Create site');
    await submitForm(page, 'New campaign', { Name: 'Spring launch' }, 'Create campaign');
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/console\/campaigns\/[0-9a-f-]{36}$/);
    state.campaignId = new URL(page.url()).pathname.split('/').pop();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Spring launch');
    await audit(page, 'campaign', { screenshot: false });
  });

  it('creates an API key, sees it once with a copy button, and uses it on /api/v1', async () => {
    await visit(page, '/console/settings/api-keys');
    const form = page.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Name', { exact: true }).fill('CI pipeline');
    for (const scope of ['read', 'write', 'webhooks']) await form.getByLabel(scope, { exact: true }).check();
    await form.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    expect(key).toMatch(/^svc_(live|test)_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Copied.' }).count()).toBe(1);
    await audit(page, 'api-keys');

    const me = await fetch(`${sys.gatewayUrl}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { organization: { id: string } }).organization.id).toBe(owner.org.id);
    const campaigns = (await (await fetch(`${sys.gatewayUrl}/api/v1/campaigns`, { headers: { 'x-api-key': key } })).json()) as Array<{ id: string }>;
    expect(campaigns.map((c) => c.id)).toEqual([state.campaignId]);
    state.apiKey = key;

    // The list shows when it was last used, never the key.
    await visit(page, '/console/settings/api-keys');
    expect(await page.content()).not.toContain(key);
  });

  it('subscribes the loopback receiver and is shown the signing secret once', async () => {
    await visit(page, '/console/settings/webhooks');
    await submitForm(page, 'Subscribe an endpoint', { URL: receiver.url, Name: 'Loopback receiver' }, 'Subscribe');
    state.secret = (await page.locator('#new-secret').textContent())!;
    expect(state.secret.length).toBeGreaterThan(20);
    await audit(page, 'webhooks');
    await page.getByRole('link', { name: "Open the new endpoint's page" }).click();
    state.webhookId = new URL(page.url()).pathname.split('/').pop();
    await expect.poll(() => page.getByText('Nothing delivered yet.').count()).toBe(1);
    await audit(page, 'webhook', { screenshot: false });
  });

  it('files an issue in the console and sees its delivery appear in the log without reloading', async () => {
    await page.evaluate('window.stayed = true');
    const other = await owner.context.newPage();
    await visit(other, `/console/campaigns/${state.campaignId}/issues/new`);
    await audit(other, 'issue-new', { screenshot: false });
    await fileIssue(other, { title: 'Checkout button does nothing', severity: 'High', type: 'Bug', pageUrl: 'https://shop.example.com/checkout' });
    await expect.poll(() => new URL(other.url()).pathname).toMatch(/^\/console\/issues\//);
    state.issueId = new URL(other.url()).pathname.split('/').pop();
    await other.close();

    const row = page.getByRole('row').filter({ hasText: 'IssueCreated' });
    await expect.poll(() => row.count(), { timeout: 20_000 }).toBe(1);
    expect(await row.textContent()).toContain('200');
    expect(await page.evaluate('window.stayed')).toBe(true);

    // The receiver got it, signed with the secret shown once.
    const delivery = receiver.received.find((d) => d.headers['x-service-event'] === 'IssueCreated')!;
    expect(delivery.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', state.secret!).update(delivery.body).digest('hex')}`);
  });

  it('sees the endpoint disabled by five failed deliveries, and re-enables it from the page', async () => {
    receiver.answer = failing;
    await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        fetch(`${sys.gatewayUrl}/api/v1/campaigns/${state.campaignId}/issues`, {
          method: 'POST',
          headers: { authorization: `Bearer ${state.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Broken ${i}`, severity: 'Low', type: 'Bug' }),
        }).then((r) => expect(r.status).toBe(201)),
      ),
    );
    // Live: the state and the re-enable button appear without reloading.
    const reenable = page.getByRole('button', { name: 'Re-enable endpoint' });
    await expect.poll(() => reenable.count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => page.getByText('5 of 5').count()).toBe(1);
    expect(await page.getByRole('row').filter({ hasText: 'receiver is down' }).count()).toBeGreaterThan(0);

    receiver.answer = ok;
    await reenable.click();
    await expect.poll(() => page.getByText('Enabled', { exact: true }).count()).toBeGreaterThan(0);
    await audit(page, 'webhook-log');
    const before = receiver.received.length;
    await page.getByRole('form', { name: 'Send a test event' }).getByLabel('Event').selectOption('IssueUpdated');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.getByText('Test delivery queued').count()).toBe(1);
    await eventually(() => expect(receiver.received.length).toBeGreaterThan(before), { timeoutMs: 10_000 });
  });

  it('works the issue: status, duplicate, assignee, history', async () => {
    await visit(page, `/console/issues/${state.issueId}`);
    await audit(page, 'issue');
    await page.getByRole('form', { name: 'Change the status' }).getByLabel('Reason').fill('Seen it');
    await page.getByRole('button', { name: 'Acknowledged', exact: true }).click();
    await expect.poll(() => page.getByRole('table', { name: 'History' }).getByRole('row').filter({ hasText: 'Seen it' }).count()).toBe(1);
    await submitForm(page, 'Assign', { 'Assign to': 'Dana' }, 'Assign');
    await expect.poll(() => page.getByText('Assigned to Dana.').count()).toBe(1);
    await page.getByRole('form', { name: 'Unassign' }).getByRole('button').click();
    await expect.poll(() => page.getByText('Nobody is assigned.').count()).toBe(1);

    const page2 = await operator<{ items: Array<{ id: string; title: string }> }>(sys, 'GET', `/admin/v1/campaigns/${state.campaignId}/issues?pageSize=50`);
    const original = page2.items.find((i) => i.title === 'Broken 1')!;
    const dup = page.getByRole('form', { name: 'Mark as duplicate' });
    await dup.getByLabel('Duplicate of').selectOption(original.id);
    await dup.getByRole('button', { name: 'Mark as duplicate' }).click();
    await expect.poll(() => page.getByRole('link', { name: /^#\d+$/ }).count()).toBe(1);
    const issue = await operator<{ status: string; duplicateOfId: string }>(sys, 'GET', `/admin/v1/issues/${state.issueId}`);
    expect(issue).toMatchObject({ status: 'Duplicate', duplicateOfId: original.id });
  });

  it('files nothing when a field is wrong, and says which', async () => {
    await visit(page, `/console/campaigns/${state.campaignId}/issues/new`);
    await fileIssue(page, { title: 'Bad link', severity: 'Low', type: 'Bug', pageUrl: 'ftp://shop.example.com/' });
    await expect.poll(() => page.getByText('Must be an absolute http or https URL.').count()).toBe(1);
    expect(await page.getByLabel('Page URL').getAttribute('aria-invalid')).toBe('true');
    await audit(page, 'issue-new-refused');
  });
});

describe('the campaign page', () => {
  it('launches the campaign, and shows the 409 of a move that is no longer allowed', async () => {
    await visit(page, `/console/campaigns/${state.campaignId}`);
    await page.getByRole('button', { name: 'Launch' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Pause' }).count()).toBe(1);
    // Someone else closes it meanwhile: the page's Pause is refused with the current state.
    await operator(sys, 'POST', `/admin/v1/campaigns/${state.campaignId}/status`, { to: 'Closed' });
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Closed');
  });

  it('shows the readiness verdict change live when a signer stamps elsewhere', async () => {
    const site = await operator<{ id: string }>(sys, 'POST', `/admin/v1/organizations/${owner.org.id}/sites`, { name: 'Second' });
    const campaign = await operator<{ id: string }>(sys, 'POST', `/admin/v1/sites/${site.id}/campaigns`, { name: 'Sign-off' });
    state.signoffCampaignId = campaign.id;
    await visit(page, `/console/campaigns/${campaign.id}`);
    await submitForm(page, 'Add a signer', { Name: 'Quinn', 'E-mail': 'quinn@example.com' }, 'Add signer');
    const readiness = page.locator('#readiness');
    await expect.poll(() => readiness.textContent()).toContain('0 signed');
    await page.evaluate('window.stayed = true');

    const [signer] = await operator<Array<{ id: string }>>(sys, 'GET', `/admin/v1/campaigns/${campaign.id}/signers`);
    const report = await operator<{ version: number }>(sys, 'GET', `/admin/v1/campaigns/${campaign.id}/report`);
    await operator(sys, 'POST', `/admin/v1/campaigns/${campaign.id}/report/stamps`, { signerId: signer!.id, version: report.version, decision: 'approve' });
    await expect.poll(() => readiness.textContent(), { timeout: 15_000 }).toContain('1 signed');
    expect(await page.evaluate('window.stayed')).toBe(true);
    await audit(page, 'campaign-signed', { screenshot: false });
  });

  it('adds a task and a tester, and completes the task', async () => {
    await visit(page, `/console/campaigns/${state.signoffCampaignId}`);
    await submitForm(page, 'Add a task', { Title: 'Buy something' }, 'Add task');
    await expect.poll(() => page.getByRole('table', { name: 'Tasks' }).getByRole('row').filter({ hasText: 'Buy something' }).count()).toBe(1);
    await submitForm(page, 'Invite a tester', { Name: 'Tess', 'E-mail': 'tess@example.com' }, 'Invite tester');
    const tess = page.getByRole('table', { name: 'Testers' }).getByRole('row').filter({ hasText: 'tess@example.com' });
    await expect.poll(() => tess.textContent()).toContain('0 of 1 required');
    // The task is picked from the campaign's, in the form of the tester it is for.
    const form = page.getByRole('form', { name: 'Complete a task for Tess' });
    await form.getByLabel('Task', { exact: true }).selectOption({ label: 'Buy something (required)' });
    await submitForm(page, 'Complete a task for Tess', { Verdict: 'Works' }, 'Complete task');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'finished the campaign' }).count()).toBe(1);
    await expect.poll(() => tess.textContent()).toContain('1 of 1 required');
    expect(await tess.textContent()).toContain('Completed');
    expect(await page.getByRole('form', { name: 'Complete a task for Tess' }).count()).toBe(0);
    await audit(page, 'campaign-testers');
  });

  it('lists the campaigns with their verdict and gate', async () => {
    await visit(page, '/console/campaigns');
    const row = page.getByRole('row').filter({ hasText: 'Spring launch' });
    expect(await row.textContent()).toContain('Closed');
    await audit(page, 'campaigns');
  });
});

describe('integrations', () => {
  it('connects a chat channel, tests it and shows the activity', async () => {
    await visit(page, '/console/settings/integrations');
    await audit(page, 'integrations');
    await page.locator('summary', { hasText: 'Connect Slack' }).click();
    await submitForm(page, 'Connect Slack', { Name: 'Team channel', 'Webhook URL': receiver.url }, 'Connect Slack');
    await page.getByRole('link', { name: 'Team channel' }).click();
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Test succeeded' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('table', { name: /Activity/ }).getByRole('row').filter({ hasText: 'test' }).count()).toBe(1);
    await audit(page, 'integration');
  });

  it('connects a GitHub repository, shows its webhook secret once, and the issue page links the tracker issue', async () => {
    github.createRepo('acme', 'shop');
    await visit(page, '/console/settings/integrations');
    await page.locator('summary', { hasText: 'Connect GitHub' }).click();
    await submitForm(page, 'Connect GitHub', { Name: 'Shop repo', Owner: 'acme', Repository: 'shop', 'API base URL': github.url, Token: github.addToken() }, 'Connect GitHub');
    expect((await page.locator('#inbound-secret').textContent())!.length).toBeGreaterThan(20);
    expect(await page.content()).toContain('/integrations/v1/hooks/');

    const title = 'Synced to GitHub';
    const filed = await fetch(`${sys.gatewayUrl}/api/v1/campaigns/${state.signoffCampaignId}/issues`, {
      method: 'POST',
      headers: { authorization: `Bearer ${state.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title, severity: 'High', type: 'Bug' }),
    });
    expect(filed.status).toBe(201);
    const { id } = (await filed.json()) as { id: string };
    const tracked = await github.waitForIssue((i) => i.title.includes(title), 20_000);
    await visit(page, `/console/issues/${id}`);
    const links = page.getByRole('table', { name: 'Tracker links' });
    await expect
      .poll(
        async () => {
          await page.reload();
          return links.textContent();
        },
        { timeout: 20_000 },
      )
      .toContain(`acme/shop#${tracked.number}`);
    await audit(page, 'issue-linked', { screenshot: false });
  });
});
