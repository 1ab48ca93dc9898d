import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newOrg, startHarness, type Browser, type Harness } from './harness.ts';
import { CAMPAIGN, campaign, campaignPageAnswers, NOW, problem, startStandInGateway, WEBHOOK, webhook, type StandInGateway } from './stand-in-gateway.ts';

/**
 * The pages' remaining actions against a stand-in for the gateway's admin API (as in
 * pages-routes.test.ts): the admin call each form makes, with which body, and what the page
 * answers; and the campaign page's issue filters and paging.
 */

let gateway: StandInGateway;
let h: Harness;
let orgId: string;

beforeAll(async () => {
  gateway = await startStandInGateway();
  h = await startHarness({ GATEWAY_URL: gateway.url });
  orgId = await newOrg(h, 'Actions Org');
});

afterAll(async () => {
  await h?.close();
  await gateway?.close();
});

beforeEach(() => gateway.reset());

const answer = (call: string, status: number, body: unknown = {}) => gateway.answers.set(call, [status, body]);
const org = () => `/admin/v1/organizations/${orgId}`;

async function signedIn(role: 'Owner' | 'Admin' | 'Member'): Promise<Browser> {
  const user = await h.addUser({ orgId, role });
  const browser = h.browser();
  await browser.signIn(user.email, user.password);
  return browser;
}

const DELIVERY = '66666666-6666-4666-8666-666666666666';
const KEY = '77777777-7777-4777-8777-777777777777';
const INTEGRATION = '88888888-8888-4888-8888-888888888888';
const INVITATION = '99999999-9999-4999-8999-999999999999';
const USER = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const SIGNER = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';

const integration = { id: INTEGRATION, kind: 'slack', name: 'Team channel', config: {}, campaignIds: null, events: [], minSeverity: null, paused: false, status: 'active', lastError: null, lastSuccessAt: null, createdAt: NOW };

describe('an endpoint page', () => {
  /** What the endpoint page reads to show itself again after an action. */
  function webhookPage() {
    answer(`GET ${org()}/webhooks`, 200, [webhook]);
    answer(`GET /admin/v1/webhooks/${WEBHOOK}/deliveries?limit=50`, 200, []);
  }

  it('redelivers an attempt and says which delivery was queued', async () => {
    const browser = await signedIn('Admin');
    webhookPage();
    await browser.get(`/console/settings/webhooks/${WEBHOOK}`);
    answer(`POST /admin/v1/webhooks/${WEBHOOK}/deliveries/${DELIVERY}/redeliver`, 202, { eventId: 'evt', deliveryId: 'dlv-again' });
    const page = await browser.post(`/console/settings/webhooks/${WEBHOOK}/deliveries/${DELIVERY}/redeliver`, {});
    expect(gateway.writes()).toEqual([{ method: 'POST', path: `/admin/v1/webhooks/${WEBHOOK}/deliveries/${DELIVERY}/redeliver`, body: {} }]);
    expect(page.status).toBe(202);
    expect(page.text).toContain('Sent again as delivery <code>dlv-again</code>.');
  });

  it('recovers failed deliveries since a UTC time, and shows a refusal beside the form', async () => {
    const browser = await signedIn('Owner');
    webhookPage();
    await browser.get(`/console/settings/webhooks/${WEBHOOK}`);
    const recover = `POST /admin/v1/webhooks/${WEBHOOK}/recover`;
    answer(recover, 202, { count: 3 });
    const page = await browser.post(`/console/settings/webhooks/${WEBHOOK}/recover`, { since: '2026-11-26T09:30' });
    expect(gateway.writes()).toEqual([{ method: 'POST', path: `/admin/v1/webhooks/${WEBHOOK}/recover`, body: { since: '2026-11-26T09:30:00Z' } }]);
    expect(page.text).toContain('3 failed deliveries are being sent again.');

    answer(recover, 202, { count: 0 });
    expect((await browser.post(`/console/settings/webhooks/${WEBHOOK}/recover`, { since: '2026-11-26T09:30' })).text).toContain('No failed delivery to recover in that time.');

    answer(recover, 422, problem(422, 'One or more fields are invalid.', { since: ['Must be within the last 30 days.'] }));
    const refused = await browser.post(`/console/settings/webhooks/${WEBHOOK}/recover`, { since: '2020-01-01T00:00' });
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(/id="recover-since-error"><li>Must be within the last 30 days\.<\/li>/);
  });

  it('rotates the secret with the grace asked for and shows the new one once', async () => {
    const browser = await signedIn('Owner');
    webhookPage();
    await browser.get(`/console/settings/webhooks/${WEBHOOK}`);
    answer(`POST /admin/v1/webhooks/${WEBHOOK}/secret/rotate`, 200, { secret: 'whsec_brand_new', previousSecretExpiresAt: NOW });
    const page = await browser.post(`/console/settings/webhooks/${WEBHOOK}/rotate`, { graceHours: '12' });
    expect(gateway.writes()).toEqual([{ method: 'POST', path: `/admin/v1/webhooks/${WEBHOOK}/secret/rotate`, body: { graceHours: 12 } }]);
    expect(page.text).toMatch(/id="rotated-secret">whsec_brand_new</);
    expect(page.text).toContain('The previous secret keeps signing beside it until');
    expect((await browser.get(`/console/settings/webhooks/${WEBHOOK}`)).text).not.toContain('whsec_brand_new');
  });
});

describe('settings actions', () => {
  it('revoke a key, then back to the keys', async () => {
    const browser = await signedIn('Admin');
    answer(`GET ${org()}/api-keys`, 200, []);
    await browser.get('/console/settings/api-keys');
    answer(`DELETE ${org()}/api-keys/${KEY}`, 204);
    const page = await browser.post(`/console/settings/api-keys/${KEY}/revoke`, {});
    expect(gateway.writes()).toEqual([{ method: 'DELETE', path: `${org()}/api-keys/${KEY}`, body: undefined }]);
    expect([page.status, page.location]).toEqual([303, '/console/settings/api-keys']);
  });

  it('pause, resume and delete a connection', async () => {
    const browser = await signedIn('Owner');
    answer(`GET ${org()}/integrations`, 200, [integration]);
    answer(`GET /admin/v1/integrations/${INTEGRATION}/activity?limit=50`, 200, []);
    await browser.get(`/console/settings/integrations/${INTEGRATION}`);
    answer(`PATCH /admin/v1/integrations/${INTEGRATION}`, 200, { ...integration, paused: true });
    const paused = await browser.post(`/console/settings/integrations/${INTEGRATION}/pause`, {});
    const resumed = await browser.post(`/console/settings/integrations/${INTEGRATION}/resume`, {});
    answer(`DELETE /admin/v1/integrations/${INTEGRATION}`, 204);
    const deleted = await browser.post(`/console/settings/integrations/${INTEGRATION}/delete`, {});
    expect(gateway.writes()).toEqual([
      { method: 'PATCH', path: `/admin/v1/integrations/${INTEGRATION}`, body: { paused: true } },
      { method: 'PATCH', path: `/admin/v1/integrations/${INTEGRATION}`, body: { paused: false } },
      { method: 'DELETE', path: `/admin/v1/integrations/${INTEGRATION}`, body: undefined },
    ]);
    expect([paused.status, paused.location]).toEqual([303, `/console/settings/integrations/${INTEGRATION}`]);
    expect([resumed.status, resumed.location]).toEqual([303, `/console/settings/integrations/${INTEGRATION}`]);
    expect([deleted.status, deleted.location]).toEqual([303, '/console/settings/integrations']);
  });

  it('revoke an invitation and remove a member; the last Owner refused beside their row', async () => {
    const browser = await signedIn('Owner');
    answer(`GET ${org()}/members`, 200, [{ userId: USER, email: 'olga@example.com', name: 'Olga', role: 'Owner', joinedAt: NOW, lastSignInAt: null }]);
    answer(`GET ${org()}/invitations`, 200, []);
    await browser.get('/console/settings/members');
    answer(`DELETE ${org()}/invitations/${INVITATION}`, 204);
    const revoked = await browser.post(`/console/settings/members/invitations/${INVITATION}/revoke`, {});
    expect([revoked.status, revoked.location]).toEqual([303, '/console/settings/members']);
    answer(`DELETE ${org()}/members/${USER}`, 204);
    const removed = await browser.post(`/console/settings/members/${USER}/remove`, {});
    expect([removed.status, removed.location]).toEqual([303, '/console/settings/members']);
    expect(gateway.writes()).toEqual([
      { method: 'DELETE', path: `${org()}/invitations/${INVITATION}`, body: undefined },
      { method: 'DELETE', path: `${org()}/members/${USER}`, body: undefined },
    ]);

    answer(`DELETE ${org()}/members/${USER}`, 409, problem(409, 'An organisation keeps at least one Owner.'));
    const refused = await browser.post(`/console/settings/members/${USER}/remove`, {});
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('An organisation keeps at least one Owner.');
  });

  it.each<{ kind: string; form: Record<string, string> & { name: string }; sent: Record<string, unknown> & { credentials: Record<string, string> } }>([
    {
      kind: 'teams',
      form: { name: 'Team room', 'credentials.webhookUrl': 'https://teams.example.com/hook', events: 'IssueCreated', minSeverity: 'High' },
      sent: { kind: 'teams', name: 'Team room', config: {}, credentials: { webhookUrl: 'https://teams.example.com/hook' }, events: ['IssueCreated'], minSeverity: 'High', campaignIds: null },
    },
    {
      kind: 'jira',
      form: { name: 'Jira', 'config.baseUrl': 'https://acme.atlassian.net', 'config.projectKey': 'SHOP', 'config.issueType': '', 'config.statusMap': 'Done = Fixed\r\nWon’t do = WontFix', 'credentials.email': 'bot@acme.example', 'credentials.apiToken': 'jira-secret-token' },
      sent: {
        kind: 'jira',
        name: 'Jira',
        config: { baseUrl: 'https://acme.atlassian.net', projectKey: 'SHOP', statusMap: { Done: 'Fixed', 'Won’t do': 'WontFix' } },
        credentials: { email: 'bot@acme.example', apiToken: 'jira-secret-token' },
        minSeverity: null,
        campaignIds: null,
      },
    },
    {
      kind: 'linear',
      form: { name: 'Linear', 'config.teamId': 'c0ffee00-0000-4000-8000-000000000000', 'config.apiUrl': '', 'config.stateMap': '', 'credentials.apiKey': 'lin_api_secret', 'credentials.webhookSecret': '' },
      sent: { kind: 'linear', name: 'Linear', config: { teamId: 'c0ffee00-0000-4000-8000-000000000000' }, credentials: { apiKey: 'lin_api_secret' }, minSeverity: null, campaignIds: null },
    },
  ])('connect $kind with the fields of its form', async ({ kind, form, sent }) => {
    const browser = await signedIn('Owner');
    answer(`GET ${org()}/integrations`, 200, []);
    answer(`GET ${org()}/campaigns`, 200, []);
    await browser.get('/console/settings/integrations');
    const tracker = kind !== 'teams';
    const created = { ...integration, kind, name: form.name, ...(tracker ? { inbound: { url: 'https://example.com/integrations/v1/hooks/x', secret: 'inbound-shown-once' } } : {}) };
    answer(`POST ${org()}/integrations`, 201, created);
    const page = await browser.post('/console/settings/integrations', { kind, ...form });
    expect(gateway.writes()).toEqual([{ method: 'POST', path: `${org()}/integrations`, body: sent }]);
    expect(page.status).toBe(201);
    if (tracker) expect(page.text).toMatch(/id="inbound-secret">inbound-shown-once</);
    for (const secret of Object.values(sent.credentials)) expect(page.text).not.toContain(secret);
  });
});

describe('the campaign page', () => {
  it('adds a waiver for a signer on the report version, and a Member may not', async () => {
    const admin = await signedIn('Admin');
    campaignPageAnswers(gateway.answers);
    await admin.get(`/console/campaigns/${CAMPAIGN}`);
    answer(`POST /admin/v1/campaigns/${CAMPAIGN}/report/waivers`, 201, {});
    const page = await admin.post(`/console/campaigns/${CAMPAIGN}/waivers`, { signerId: SIGNER, version: '3', reason: '' });
    expect(gateway.writes()).toEqual([{ method: 'POST', path: `/admin/v1/campaigns/${CAMPAIGN}/report/waivers`, body: { signerId: SIGNER, version: 3, reason: null } }]);
    expect([page.status, page.location]).toEqual([303, `/console/campaigns/${CAMPAIGN}#report-heading`]);

    gateway.reset();
    campaignPageAnswers(gateway.answers);
    const member = await signedIn('Member');
    await member.get(`/console/campaigns/${CAMPAIGN}`);
    expect((await member.post(`/console/campaigns/${CAMPAIGN}/waivers`, { signerId: SIGNER, version: '3' })).status).toBe(403);
    expect(gateway.writes()).toEqual([]);
  });

  const issues = (page: number, hasMore: boolean) => ({
    items: [{ id: `${CAMPAIGN.slice(0, -4)}000${page}`, seqNumber: 25 * page, title: `Issue on page ${page}`, severity: 'High', status: 'New', type: 'Bug', assigneeName: null, createdAt: NOW }],
    page,
    pageSize: 25,
    total: 80,
    hasMore,
  });

  it('passes the status and severity filters and the page to the issue list, and links the pages around it', async () => {
    const browser = await signedIn('Member');
    campaignPageAnswers(gateway.answers);
    answer(`GET /admin/v1/campaigns/${CAMPAIGN}/issues?status=New&severity=High&page=2&pageSize=25`, 200, issues(2, true));
    const page = await browser.get(`/console/campaigns/${CAMPAIGN}?status=New&severity=High&page=2`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Issue on page 2');
    expect(page.text).toContain(`<a href="/console/campaigns/${CAMPAIGN}?status=New&amp;severity=High#issues-heading">Previous page</a>`);
    expect(page.text).toContain(`<a href="/console/campaigns/${CAMPAIGN}?status=New&amp;severity=High&amp;page=3#issues-heading">Next page</a>`);
    // The filters keep what was chosen.
    expect(page.text).toMatch(/<option value="New" selected>/);
    expect(page.text).toMatch(/<option value="High" selected>/);
  });

  it('shows no previous page on the first and no next page on the last; ignores an unknown filter or page', async () => {
    const browser = await signedIn('Member');
    campaignPageAnswers(gateway.answers);
    answer(`GET /admin/v1/campaigns/${CAMPAIGN}/issues?page=1&pageSize=25`, 200, issues(1, true));
    const first = await browser.get(`/console/campaigns/${CAMPAIGN}?status=Bogus&severity=&page=0`);
    expect(gateway.seen.some((s) => s.path === `/admin/v1/campaigns/${CAMPAIGN}/issues?page=1&pageSize=25`)).toBe(true);
    expect(first.text).not.toContain('Previous page');
    expect(first.text).toContain(`<a href="/console/campaigns/${CAMPAIGN}?page=2#issues-heading">Next page</a>`);

    answer(`GET /admin/v1/campaigns/${CAMPAIGN}/issues?page=4&pageSize=25`, 200, issues(4, false));
    const last = await browser.get(`/console/campaigns/${CAMPAIGN}?page=4`);
    expect(last.text).toContain(`<a href="/console/campaigns/${CAMPAIGN}?page=3#issues-heading">Previous page</a>`);
    expect(last.text).not.toContain('Next page');
    expect(last.text).toContain(campaign.name);
  });
});
