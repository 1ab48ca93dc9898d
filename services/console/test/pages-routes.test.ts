import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliveryLogFingerprint } from '../src/pages/settings/webhook-view.tsx';
import { newOrg, startHarness, type Browser, type Harness } from './harness.ts';
import { CAMPAIGN, campaign, campaignPageAnswers as pageAnswers, ISSUE, NOW, problem, report, startStandInGateway, task, TASK, tester, TESTER, WEBHOOK, webhook, type StandInGateway } from './stand-in-gateway.ts';

/**
 * The pages' handlers against a stand-in for the gateway's admin API (the real one is exercised
 * end to end by tests/browser): which admin calls a form makes, with which body, and what the
 * page shows for the answers (success, 422 beside the field, 409, 404, a role refused).
 * pages-actions.test.ts has the rest of the pages' actions.
 */

let gateway: StandInGateway;
let seen: StandInGateway['seen'];
let answers: StandInGateway['answers'];
let h: Harness;
let orgId: string;

beforeAll(async () => {
  gateway = await startStandInGateway();
  ({ seen, answers } = gateway);
  h = await startHarness({ GATEWAY_URL: gateway.url });
  orgId = await newOrg(h, 'Pages Org');
});

afterAll(async () => {
  await h?.close();
  await gateway?.close();
});

beforeEach(() => gateway.reset());

async function signedIn(role: 'Owner' | 'Admin' | 'Member'): Promise<Browser> {
  const user = await h.addUser({ orgId, role });
  const browser = h.browser();
  await browser.signIn(user.email, user.password);
  return browser;
}

const org = () => `/admin/v1/organizations/${orgId}`;
const campaignPageAnswers = () => pageAnswers(answers);

describe('campaign pages', () => {
  it('list the campaigns with their verdict, gate and sign-offs', async () => {
    const browser = await signedIn('Member');
    answers.set(`GET ${org()}/campaigns`, [200, [campaign]]);
    answers.set(`GET ${org()}/sites`, [200, []]);
    answers.set(`GET /admin/v1/campaigns/${CAMPAIGN}/report`, [200, { ...report, requiredCount: 2, signedCount: 1 }]);
    const page = await browser.get('/console/campaigns');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Spring launch');
    expect(page.text).toContain('Ready to launch');
    expect(page.text).toContain('1 of 2');
    expect(page.text).not.toContain('New campaign');
  });

  it('send a lifecycle move and show its 409 beside the buttons', async () => {
    const browser = await signedIn('Admin');
    campaignPageAnswers();
    await browser.get(`/console/campaigns/${CAMPAIGN}`);
    answers.set(`POST /admin/v1/campaigns/${CAMPAIGN}/status`, [409, problem(409, 'Campaign is Closed; it cannot move to Active. Allowed: none.')]);
    const page = await browser.post(`/console/campaigns/${CAMPAIGN}/status`, { to: 'Active', reason: '' });
    expect(seen.find((s) => s.method === 'POST')).toEqual({ method: 'POST', path: `/admin/v1/campaigns/${CAMPAIGN}/status`, body: { to: 'Active', reason: null } });
    expect(page.status).toBe(409);
    expect(page.text).toMatch(/role="alert"><p>Campaign is Closed; it cannot move to Active\. Allowed: none\.<\/p>/);
  });

  it('refuse a Member\'s lifecycle move without calling the gateway', async () => {
    const browser = await signedIn('Member');
    campaignPageAnswers();
    await browser.get(`/console/campaigns/${CAMPAIGN}`);
    const page = await browser.post(`/console/campaigns/${CAMPAIGN}/status`, { to: 'Active' });
    expect(page.status).toBe(403);
    expect(seen.some((s) => s.method === 'POST')).toBe(false);
  });

  it("complete a tester's task chosen from the campaign's, a refusal shown beside that tester's form", async () => {
    const browser = await signedIn('Member');
    campaignPageAnswers();
    const shown = await browser.get(`/console/campaigns/${CAMPAIGN}`);
    expect(shown.text).toContain('aria-label="Complete a task for Tess"');
    expect(shown.text).toContain(`<option value="${TASK}" selected>Buy something (required)</option>`);
    const complete = `/admin/v1/campaign-testers/${TESTER}/tasks/${TASK}/complete`;
    answers.set(`POST ${complete}`, [200, { ...tester, status: 'Completed', verdict: 'Works', completedAt: NOW, completedTasks: [{ ...task, verdict: 'Works', completedAt: NOW }] }]);
    const done = await browser.post(`/console/campaigns/${CAMPAIGN}/complete-task`, { testerId: TESTER, taskId: TASK, verdict: 'Works' });
    expect(seen.filter((s) => s.method === 'POST')).toEqual([{ method: 'POST', path: complete, body: { verdict: 'Works' } }]);
    expect(done.status).toBe(200);
    expect(done.text).toContain('Tess has completed 1 task');

    answers.set(`POST ${complete}`, [422, problem(422, 'Validation failed.', { verdict: ['Must be at most 200 characters.'] })]);
    const refused = await browser.post(`/console/campaigns/${CAMPAIGN}/complete-task`, { testerId: TESTER, taskId: TASK, verdict: 'x'.repeat(201) });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain(`<ul class="field-error" id="complete-${TESTER}-verdict-error"><li>Must be at most 200 characters.</li></ul>`);
  });

  it('answer 404 for an id that is not one, without calling the gateway', async () => {
    const browser = await signedIn('Owner');
    expect((await browser.get('/console/campaigns/..%2F..%2Forganizations')).status).toBe(404);
    expect((await browser.get('/console/issues/not-an-id')).status).toBe(404);
    expect(seen).toEqual([]);
  });
});

describe('filing an issue', () => {
  it('sends every field, empty optional ones as null, and goes to the new issue', async () => {
    const browser = await signedIn('Member');
    answers.set(`GET /admin/v1/campaigns/${CAMPAIGN}`, [200, campaign]);
    await browser.get(`/console/campaigns/${CAMPAIGN}/issues/new`);
    answers.set(`POST /admin/v1/campaigns/${CAMPAIGN}/issues`, [201, { id: ISSUE, seqNumber: 4 }]);
    const page = await browser.post(`/console/campaigns/${CAMPAIGN}/issues`, { title: 'Broken', severity: 'High', type: 'Bug', description: 'It fails', pageUrl: '', testerEmail: '' });
    expect(page.status).toBe(303);
    expect(page.location).toBe(`/console/issues/${ISSUE}`);
    const body = seen.find((s) => s.method === 'POST')!.body as Record<string, unknown>;
    expect(body).toMatchObject({ title: 'Broken', severity: 'High', type: 'Bug', description: 'It fails', pageUrl: null, testerEmail: null, screenshotUrl: null });
  });

  it('shows a 422 beside its field and keeps what was typed', async () => {
    const browser = await signedIn('Member');
    answers.set(`GET /admin/v1/campaigns/${CAMPAIGN}`, [200, campaign]);
    await browser.get(`/console/campaigns/${CAMPAIGN}/issues/new`);
    answers.set(`POST /admin/v1/campaigns/${CAMPAIGN}/issues`, [422, problem(422, 'One or more fields are invalid.', { pageUrl: ['Must be an absolute http or https URL.'] })]);
    const page = await browser.post(`/console/campaigns/${CAMPAIGN}/issues`, { title: 'Kept title', severity: 'High', type: 'Bug', pageUrl: 'ftp://x' });
    expect(page.status).toBe(422);
    expect(page.text).toContain('value="Kept title"');
    expect(page.text).toMatch(/id="pageUrl"[^>]*aria-invalid="true" aria-describedby="pageUrl-error"/);
    expect(page.text).toContain('<li>Must be an absolute http or https URL.</li>');
  });
});

describe('settings', () => {
  it('are the 403 page for a Member', async () => {
    const browser = await signedIn('Member');
    for (const path of ['/console/settings/api-keys', '/console/settings/webhooks', '/console/settings/integrations', '/console/settings/members', `/console/settings/webhooks/${WEBHOOK}`]) {
      expect((await browser.get(path)).status, path).toBe(403);
    }
    expect(seen).toEqual([]);
  });

  it('create a key with the scopes ticked and show it once', async () => {
    const browser = await signedIn('Admin');
    answers.set(`GET ${org()}/api-keys`, [200, []]);
    await browser.get('/console/settings/api-keys');
    answers.set(`POST ${org()}/api-keys`, [201, { id: ISSUE, name: 'CI', scopes: ['write'], key: 'svc_test_secretvalue', createdAt: NOW }]);
    const page = await browser.post('/console/settings/api-keys', { name: 'CI', scopes: 'write', environment: 'test' });
    expect(page.status).toBe(201);
    expect(page.text).toContain('<code id="new-key">svc_test_secretvalue</code>');
    expect(seen.find((s) => s.method === 'POST')!.body).toEqual({ name: 'CI', scopes: ['write'], environment: 'test' });
  });

  it('answer 404 for a webhook the organisation\'s list does not hold', async () => {
    const browser = await signedIn('Owner');
    answers.set(`GET ${org()}/webhooks`, [200, [webhook]]);
    expect((await browser.get('/console/settings/webhooks/44444444-4444-4444-8444-444444444444')).status).toBe(404);
  });

  it('poll the delivery log with 204 while nothing changed', async () => {
    const browser = await signedIn('Owner');
    answers.set(`GET ${org()}/webhooks`, [200, [webhook]]);
    answers.set(`GET /admin/v1/webhooks/${WEBHOOK}/deliveries?limit=50`, [200, []]);
    const seenNow = deliveryLogFingerprint({ webhook: webhook as never, deliveries: [] });
    expect((await browser.get(`/console/settings/webhooks/${WEBHOOK}/deliveries?seen=${seenNow}`)).status).toBe(204);
    const changed = await browser.get(`/console/settings/webhooks/${WEBHOOK}/deliveries?seen=stale`);
    expect(changed.status).toBe(200);
    expect(changed.text).toMatch(/^<div id="delivery-log"/);
  });

  it('connect a tracker with config and credentials from the kind\'s fields, never echoing a credential', async () => {
    const browser = await signedIn('Owner');
    answers.set(`GET ${org()}/integrations`, [200, []]);
    answers.set(`GET ${org()}/campaigns`, [200, []]);
    await browser.get('/console/settings/integrations');
    answers.set(`POST ${org()}/integrations`, [422, problem(422, 'One or more fields are invalid.', { 'config.owner': ['Must be a GitHub user or organisation name.'] })]);
    const page = await browser.post('/console/settings/integrations', { kind: 'github', name: 'Repo', 'config.owner': 'bad owner', 'config.repo': 'shop', 'config.labels': 'a, b', 'credentials.token': 'ghp_supersecret' });
    expect(seen.find((s) => s.method === 'POST')!.body).toEqual({
      kind: 'github',
      name: 'Repo',
      config: { owner: 'bad owner', repo: 'shop', labels: ['a', 'b'] },
      credentials: { token: 'ghp_supersecret' },
      minSeverity: null,
      campaignIds: null,
    });
    expect(page.status).toBe(422);
    expect(page.text).toContain('Must be a GitHub user or organisation name.');
    expect(page.text).toContain('value="bad owner"');
    expect(page.text).not.toContain('ghp_supersecret');
  });
});
