import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  startFakeGithub,
  startFakeJira,
  startFakeLinear,
  startFakeSlack,
  startFakeTeams,
  type FakeGithub,
  type FakeJira,
  type FakeLinear,
  type FakeSlack,
  type FakeTeams,
} from '@preflight/provider-fakes';
import { eventually } from '@preflight/testing';
import { call, freshTenant } from '../support/client.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { expectProblem } from './problems.ts';

// Rule 1 of the public contract, end to end: an issue filed through /api/v1 reaches the
// organisation's chat channels and is created once in its trackers; a tracker's signed hook
// (through the gateway's public side) moves the Preflight issue through the same pipeline
// (history, events, webhooks), and the change is not echoed back to that tracker.
const sys = inject('system');
let slack: FakeSlack;
let teams: FakeTeams;
let github: FakeGithub;
let jira: FakeJira;
let linear: FakeLinear;
let receiver: Receiver;
const TEAM = randomUUID();

beforeAll(async () => {
  [slack, teams, github, jira, linear, receiver] = await Promise.all([startFakeSlack(), startFakeTeams(), startFakeGithub(), startFakeJira(), startFakeLinear(), startReceiver()]);
  github.createRepo('acme', 'shop');
  jira.createProject('SHOP');
  linear.createTeam(TEAM, 'ENG');
});
afterAll(async () => {
  await Promise.all([slack, teams, github, jira, linear, receiver].map((f) => f?.close()));
});

const admin = (method: string, path: string, body?: unknown) => call(sys, method, path, { token: sys.adminToken, ...(body !== undefined ? { body } : {}) });

async function connect(orgId: string, body: Record<string, unknown>) {
  const res = await admin('POST', `/admin/v1/organizations/${orgId}/integrations`, body);
  expect(res.status).toBe(201);
  return res.body as { id: string; inbound?: { url: string; secret: string } };
}

describe('an issue filed through the public API', () => {
  it('is announced in Slack and Teams and created once in GitHub, Jira and Linear; closing it on GitHub fixes it in Preflight, in the other trackers and at webhooks', async () => {
    const t = await freshTenant(sys, { all: ['read', 'write', 'webhooks'] });
    await t.admin.setCampaignStatus(t.campaign.id, 'Active');
    const orgId = t.org.id;
    await connect(orgId, { kind: 'slack', name: 'Launch channel', config: {}, credentials: { webhookUrl: slack.webhookUrl('#launch') } });
    await connect(orgId, { kind: 'teams', name: 'QA', config: {}, credentials: { webhookUrl: teams.webhookUrl() } });
    const gh = await connect(orgId, { kind: 'github', name: 'Shop repo', config: { owner: 'acme', repo: 'shop', apiBaseUrl: github.url }, credentials: { token: github.addToken() } });
    await connect(orgId, { kind: 'jira', name: 'Shop project', config: { baseUrl: jira.url, projectKey: 'SHOP' }, credentials: { email: jira.email, apiToken: jira.apiToken } });
    await connect(orgId, { kind: 'linear', name: 'Engineering', config: { teamId: TEAM, apiUrl: linear.apiUrl }, credentials: { apiKey: linear.apiKey } });
    const hook = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: t.keys.all!.key, body: { url: receiver.url, events: ['IssueUpdated'] } });
    expect(hook.status).toBe(201);

    // The GitHub hook is registered with what the connection showed: the gateway's public URL and the secret.
    expect(gh.inbound!.url).toBe(`${sys.gatewayUrl}/integrations/v1/hooks/${gh.id}`);
    github.registerHook(gh.inbound!.url, gh.inbound!.secret, 'acme/shop');

    const title = `Payment page freezes ${randomUUID().slice(0, 8)}`;
    const filed = await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: t.keys.all!.key, body: { title, severity: 'Critical', type: 'Bug', pageUrl: 'https://shop.example.com/pay' } });
    expect(filed.status).toBe(201);
    const issueId = filed.body.id as string;

    const message = await slack.waitForMessage((m) => JSON.stringify(m.body).includes(title));
    expect(JSON.stringify(message.body)).toContain(`#${filed.body.seqNumber}`);
    expect(JSON.stringify(message.body)).toContain('Launch');
    await teams.waitForCard((c) => JSON.stringify(c.card).includes(title));
    const ghIssue = await github.waitForIssue((i) => i.title.includes(title));
    await jira.waitForIssue((i) => i.summary.includes(title));
    await linear.waitForIssue((i) => i.title.includes(title));
    const links = await eventually(async () => {
      const res = await admin('GET', `/admin/v1/issues/${issueId}/links`);
      expect(res.body).toHaveLength(3);
      return res.body as Array<{ kind: string; externalKey: string }>;
    });
    expect(links.map((l) => l.kind).sort()).toEqual(['github', 'jira', 'linear']);
    expect(links.find((l) => l.kind === 'github')!.externalKey).toBe(`acme/shop#${ghIssue.number}`);

    // A person closes it on GitHub; GitHub calls the hook through the gateway.
    expect(await github.closeIssue('acme', 'shop', ghIssue.number, 'completed')).toBe(200);
    const fixed = await eventually(async () => {
      const res = await call(sys, 'GET', `/api/v1/issues/${issueId}`, { apiKey: t.keys.all!.key });
      expect(res.body.status).toBe('Fixed');
      return res.body;
    });
    expect(fixed.history.at(-1)).toMatchObject({ from: 'New', to: 'Fixed' });
    expect(fixed.history.at(-1).reason).toContain(`acme/shop#${ghIssue.number}`);
    const update = await eventually(() => {
      const d = receiver.received.map((r) => JSON.parse(r.body)).find((e) => e.eventType === 'IssueUpdated' && e.data.issueId === issueId);
      expect(d).toBeDefined();
      return d;
    });
    expect(update.data).toMatchObject({ oldStatus: 'New', newStatus: 'Fixed' });

    // The other trackers follow; GitHub, where the change came from, is not written to again.
    await eventually(() => expect(jira.issues().find((i) => i.summary.includes(title))!.status).toBe('Done'));
    await eventually(() => expect(linear.issues().find((i) => i.title.includes(title))!.state.type).toBe('completed'));
    expect(github.requests.filter((r) => r.method === 'PATCH' && r.url.includes(`/issues/${ghIssue.number}`))).toHaveLength(0);
    expect(github.issues('acme', 'shop').filter((i) => i.title.includes(title))).toHaveLength(1);
  });

  it('refuses an unsigned tracker hook at the gateway with 401 and changes nothing', async () => {
    const t = await freshTenant(sys);
    const gh = await connect(t.org.id, { kind: 'github', name: 'Repo', config: { owner: 'acme', repo: 'shop', apiBaseUrl: github.url }, credentials: { token: github.addToken() } });
    const res = await call(sys, 'POST', `/integrations/v1/hooks/${gh.id}`, {
      rawBody: JSON.stringify({ action: 'closed', issue: { number: 1, state: 'closed' }, repository: { full_name: 'acme/shop' } }),
      headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-hub-signature-256': 'sha256=00' },
    });
    expectProblem(res, 401);
    const activity = await admin('GET', `/admin/v1/integrations/${gh.id}/activity`);
    expect(activity.body).toEqual([]);
  });

  it('never returns credentials, and shows the inbound secret only when the tracker is connected', async () => {
    const t = await freshTenant(sys);
    const token = github.addToken();
    const created = await admin('POST', `/admin/v1/organizations/${t.org.id}/integrations`, { kind: 'github', name: 'Repo', config: { owner: 'acme', repo: 'shop', apiBaseUrl: github.url }, credentials: { token } });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(token);
    const listed = await admin('GET', `/admin/v1/organizations/${t.org.id}/integrations`);
    expect(listed.text).not.toContain(token);
    expect(listed.text).not.toContain(created.body.inbound.secret);
    expect(listed.body[0].inbound).toEqual({ url: created.body.inbound.url });
  });
});
