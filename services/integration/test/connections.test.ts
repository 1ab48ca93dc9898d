import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@preflight/db';
import { startFakeGithub, startFakeJira, startFakeLinear, startFakeSlack, startFakeTeams, type FakeGithub, type FakeJira, type FakeLinear, type FakeSlack, type FakeTeams } from '@preflight/provider-fakes';
import { eventually } from '@preflight/testing';
import { activityOf, connect, connectionOf, integrationSuite, jobsOf, metricValue } from './harness.ts';

const h = integrationSuite();
let slack: FakeSlack;
let teams: FakeTeams;
let github: FakeGithub;
let jira: FakeJira;
let linear: FakeLinear;

beforeAll(async () => {
  [slack, teams, github, jira, linear] = await Promise.all([startFakeSlack(), startFakeTeams(), startFakeGithub(), startFakeJira(), startFakeLinear()]);
});
afterAll(async () => {
  await Promise.all([slack?.close(), teams?.close(), github?.close(), jira?.close(), linear?.close()]);
});

const integrations = (orgId: string) => `/admin/v1/organizations/${orgId}/integrations`;
const said = (m: { body: unknown }) => JSON.stringify(m.body);
const pathOf = (url: string) => new URL(url).pathname;
const hitsOn = (url: string) => slack.requests.filter((r) => r.url === pathOf(url)).length;

describe('creating connections', () => {
  it('creates every kind with its defaults, shows a tracker its inbound secret once, and never answers or stores credentials in clear', async () => {
    const orgId = randomUUID();
    const token = github.addToken();
    const teamId = randomUUID();
    const kinds = [
      { kind: 'slack', name: 'Launch channel', config: {}, credentials: { webhookUrl: slack.webhookUrl('#launch') } },
      { kind: 'teams', name: 'QA team', config: {}, credentials: { webhookUrl: teams.webhookUrl() } },
      { kind: 'github', name: 'Shop repo', config: { owner: 'acme', repo: 'shop', apiBaseUrl: github.url, labels: ['preflight'] }, credentials: { token } },
      { kind: 'jira', name: 'Jira', config: { baseUrl: jira.url, projectKey: 'PREF' }, credentials: { email: jira.email, apiToken: jira.apiToken } },
      { kind: 'linear', name: 'Linear', config: { teamId, apiUrl: linear.apiUrl }, credentials: { apiKey: linear.apiKey } },
    ];
    const secrets = kinds.flatMap((k) => Object.values(k.credentials));
    const answers: unknown[] = [];
    const created: any[] = [];
    for (const body of kinds) {
      const res = await h.call('POST', integrations(orgId), { body });
      expect(res.status).toBe(201);
      answers.push(res.body);
      const tracker = !['slack', 'teams'].includes(body.kind);
      expect(res.body).toEqual({
        id: expect.any(String),
        kind: body.kind,
        name: body.name,
        config: body.config,
        campaignIds: null,
        events: ['IssueCreated'],
        minSeverity: null,
        paused: false,
        status: 'active',
        lastError: null,
        lastSuccessAt: null,
        createdAt: expect.any(String),
        ...(tracker ? { inbound: { url: `https://api.preflight.test/integrations/v1/hooks/${res.body.id}`, secret: expect.stringMatching(/.{16,}/) } } : {}),
      });
      created.push(res.body);
    }

    const list = await h.call('GET', integrations(orgId));
    expect(list.status).toBe(200);
    answers.push(list.body);
    // Newest first; a tracker shows where its hooks go, never the secret again.
    expect(list.body).toEqual([...created].reverse().map(({ inbound, ...rest }) => (inbound ? { ...rest, inbound: { url: inbound.url } } : rest)));
    for (const answer of answers) for (const secret of secrets) expect(JSON.stringify(answer)).not.toContain(secret);

    for (const c of created) {
      const { rows } = await sql<{ row: string }>`select t::text as row from connections t where id = ${c.id}`.execute(h.service.database.db);
      for (const secret of secrets) {
        expect(rows[0]!.row).not.toContain(secret);
        expect(rows[0]!.row).not.toContain(Buffer.from(secret).toString('hex'));
      }
      if (c.inbound) expect(rows[0]!.row).not.toContain(c.inbound.secret);
    }
  });

  it('refuses invalid settings with a 422 problem naming each field, without repeating a credential', async () => {
    const orgId = randomUUID();
    const hook = { kind: 'slack', name: 'Channel', config: {}, credentials: { webhookUrl: slack.webhookUrl() } };
    const repo = { kind: 'github', name: 'Repo', config: { owner: 'acme', repo: 'shop', apiBaseUrl: github.url }, credentials: { token: 'ghp_valid' } };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['unknown kind', { ...hook, kind: 'discord' }, 'kind'],
      ['missing name', { ...hook, name: undefined }, 'name'],
      ['github without repo', { ...repo, config: { owner: 'acme' } }, 'config.repo'],
      ['unknown property', { ...hook, colour: 'red' }, 'colour'],
      ['unknown config property', { ...hook, config: { channel: '#general' } }, 'config.channel'],
      ['credentials missing a field', { kind: 'jira', name: 'Jira', config: { baseUrl: jira.url, projectKey: 'PREF' }, credentials: { email: jira.email } }, 'credentials.apiToken'],
      ['bad token', { ...repo, credentials: { token: 'ghp secret-value-1' } }, 'credentials.token'],
      ['bad webhook URL', { ...hook, credentials: { webhookUrl: 'secret-value-2' } }, 'credentials.webhookUrl'],
      ['bad campaign id', { ...hook, campaignIds: ['spring'] }, 'campaignIds.0'],
      ['unknown event', { ...hook, events: ['IssueExploded'] }, 'events.0'],
      ['tracker with other events', { ...repo, events: ['IssueCreated', 'IssueClosed'] }, 'events'],
      ['bad severity floor', { ...hook, minSeverity: 'Catastrophic' }, 'minSeverity'],
    ];
    for (const [what, body, field] of cases) {
      const res = await h.call('POST', integrations(orgId), { body });
      expect({ what, status: res.status, type: res.headers.get('content-type') }).toEqual({ what, status: 422, type: expect.stringMatching(/^application\/problem\+json/) });
      expect({ what, errors: Object.keys(res.body.errors) }).toEqual({ what, errors: expect.arrayContaining([field]) });
      expect(JSON.stringify(res.body)).not.toMatch(/secret-value/);
    }
    expect((await h.call('GET', integrations(orgId))).body).toEqual([]);
  });
});

describe('changing connections', () => {
  it('PATCH changes the name, campaign filter, events, severity floor and pausing, with the same rules as create', async () => {
    const orgId = randomUUID();
    const c = await connect(h, orgId, { kind: 'slack', name: 'Before', config: {}, credentials: { webhookUrl: slack.webhookUrl() } });
    const campaignId = randomUUID();
    const change = { name: 'After', campaignIds: [campaignId.toUpperCase()], events: ['IssueCreated', 'IssueClosed'], minSeverity: 'High', paused: true };
    const res = await h.call('PATCH', `/admin/v1/integrations/${c.id}`, { body: change });
    expect(res.status).toBe(200);
    const expected = { ...c, ...change, campaignIds: [campaignId] };
    expect(res.body).toEqual(expected);
    expect(await connectionOf(h, orgId, c.id)).toEqual(expected);

    const cleared = await h.call('PATCH', `/admin/v1/integrations/${c.id}`, { body: { campaignIds: null, minSeverity: null, paused: false } });
    expect(cleared.body).toMatchObject({ campaignIds: null, minSeverity: null, paused: false, name: 'After' });
    const bad = await h.call('PATCH', `/admin/v1/integrations/${c.id}`, { body: { events: [], credentials: { webhookUrl: 'secret-value-3' } } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(expect.arrayContaining(['events']));
    expect(JSON.stringify(bad.body)).not.toContain('secret-value-3');
  });

  it('a revoked webhook needs attention and nothing more is tried until new credentials, which deliver what waited', async () => {
    const orgId = randomUUID();
    const campaignId = randomUUID();
    const revoked = slack.webhookUrl('#revoked');
    const c = await connect(h, orgId, { kind: 'slack', name: 'Revoked', config: {}, credentials: { webhookUrl: revoked } });
    await connect(h, orgId, { kind: 'slack', name: 'Control', config: {}, credentials: { webhookUrl: slack.webhookUrl('#control') } });
    slack.revoke(revoked);
    const attentionBefore = await metricValue(h, 'integration_connections_needing_attention');

    await h.fileIssue(orgId, campaignId, { title: 'Filed before the fix' });
    const broken = await eventually(async () => {
      const now = await connectionOf(h, orgId, c.id);
      expect(now.status).toBe('needs-attention');
      return now;
    });
    expect(broken.lastError).toMatch(/404/);
    expect(broken.lastError).not.toContain(pathOf(revoked));
    expect(await metricValue(h, 'integration_connections_needing_attention')).toBe(attentionBefore + 1);

    await h.fileIssue(orgId, campaignId, { title: 'Filed while broken' });
    // Both jobs of that event were queued together: the claim that ran the control channel's left this one.
    await slack.waitForMessage((m) => m.channel === '#control' && said(m).includes('Filed while broken'));
    expect(hitsOn(revoked)).toBe(1);
    expect((await jobsOf(h, c.id)).map((j) => j.state)).toEqual(['pending', 'pending']);
    expect((await activityOf(h, c.id)).map((a) => [a.action, a.outcome, a.statusCode])).toEqual([['announce', 'retrying', 404]]);

    const fresh = slack.webhookUrl('#replaced');
    const patched = await h.call('PATCH', `/admin/v1/integrations/${c.id}`, { body: { credentials: { webhookUrl: fresh } } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ status: 'active', lastError: null });
    expect(await metricValue(h, 'integration_connections_needing_attention')).toBe(attentionBefore);
    expect(JSON.stringify(patched.body)).not.toContain(pathOf(fresh));
    await slack.waitForMessage((m) => m.channel === '#replaced' && said(m).includes('Filed before the fix'));
    await slack.waitForMessage((m) => m.channel === '#replaced' && said(m).includes('Filed while broken'));
    await eventually(async () => expect((await jobsOf(h, c.id)).map((j) => j.state)).toEqual(['done', 'done']));
    expect(hitsOn(revoked)).toBe(1);
    expect(slack.messages.filter((m) => m.channel === '#replaced')).toHaveLength(2);
  });

  it('DELETE answers 204, cancels what waited, and nothing more is sent or shown for it', async () => {
    const orgId = randomUUID();
    const campaignId = randomUUID();
    const gone = slack.webhookUrl('#deleted');
    const c = await connect(h, orgId, { kind: 'slack', name: 'Deleted', config: {}, credentials: { webhookUrl: gone } });
    await connect(h, orgId, { kind: 'slack', name: 'Kept', config: {}, credentials: { webhookUrl: slack.webhookUrl('#kept') } });
    slack.revoke(gone);
    await h.fileIssue(orgId, campaignId, { title: 'Waiting for credentials' });
    await eventually(async () => expect((await connectionOf(h, orgId, c.id)).status).toBe('needs-attention'));

    const del = await h.call('DELETE', `/admin/v1/integrations/${c.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await jobsOf(h, c.id)).map((j) => j.state)).toEqual(['cancelled']);
    expect(await connectionOf(h, orgId, c.id)).toBeUndefined();
    for (const [method, path, body] of [
      ['PATCH', `/admin/v1/integrations/${c.id}`, { credentials: { webhookUrl: slack.webhookUrl() } }],
      ['POST', `/admin/v1/integrations/${c.id}/test`, undefined],
      ['GET', `/admin/v1/integrations/${c.id}/activity`, undefined],
      ['DELETE', `/admin/v1/integrations/${c.id}`, undefined],
    ] as const) {
      expect({ method, status: (await h.call(method, path, { body })).status }).toEqual({ method, status: 404 });
    }

    await h.fileIssue(orgId, campaignId, { title: 'Filed after the delete' });
    await slack.waitForMessage((m) => m.channel === '#kept' && said(m).includes('Filed after the delete'));
    expect(hitsOn(gone)).toBe(1);
    expect(await jobsOf(h, c.id)).toHaveLength(1);
  });
});

describe('testing a connection', () => {
  it('sends a test message, reads a tracker, and marks refused credentials as needing attention', async () => {
    const orgId = randomUUID();
    const chat = await connect(h, orgId, { kind: 'slack', name: 'Tested', config: {}, credentials: { webhookUrl: slack.webhookUrl('#tested') } });
    const res = await h.call('POST', `/admin/v1/integrations/${chat.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, statusCode: 200, detail: expect.any(String) });
    await slack.waitForMessage((m) => m.channel === '#tested' && said(m).includes('Preflight is connected'));

    github.createRepo('acme', 'tested');
    const token = github.addToken();
    const repo = await connect(h, orgId, { kind: 'github', name: 'Tested repo', config: { owner: 'acme', repo: 'tested', apiBaseUrl: github.url }, credentials: { token } });
    expect((await h.call('POST', `/admin/v1/integrations/${repo.id}/test`)).body).toMatchObject({ ok: true, statusCode: 200 });
    github.revokeToken(token);
    const refused = await h.call('POST', `/admin/v1/integrations/${repo.id}/test`);
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ ok: false, statusCode: 401, detail: expect.stringMatching(/401/) });
    expect(refused.body.detail).not.toContain(token);
    expect(await connectionOf(h, orgId, repo.id)).toMatchObject({ status: 'needs-attention', lastError: refused.body.detail });

    expect((await activityOf(h, repo.id)).map((a) => [a.direction, a.action, a.outcome, a.statusCode])).toEqual([
      ['out', 'test', 'failed', 401],
      ['out', 'test', 'succeeded', 200],
    ]);
    expect((await activityOf(h, chat.id)).map((a) => [a.action, a.outcome])).toEqual([['test', 'succeeded']]);
  });
});

describe('activity and links', () => {
  it('lists activity newest first, 50 by default and at most 200; a bad limit is a 400 problem', async () => {
    const orgId = randomUUID();
    const url = slack.webhookUrl('#busy');
    const c = await connect(h, orgId, { kind: 'slack', name: 'Busy', config: {}, credentials: { webhookUrl: url } });
    for (const limit of ['0', '201', 'x', '1.5']) {
      const res = await h.call('GET', `/admin/v1/integrations/${c.id}/activity?limit=${limit}`);
      expect({ limit, status: res.status, type: res.headers.get('content-type') }).toEqual({ limit, status: 400, type: expect.stringMatching(/^application\/problem\+json/) });
      expect(res.body.errors.limit).toBeDefined();
    }
    for (let batch = 0; batch < 21; batch++) {
      await Promise.all(Array.from({ length: 10 }, () => h.call('POST', `/admin/v1/integrations/${c.id}/test`)));
    }
    slack.revoke(url);
    expect((await h.call('POST', `/admin/v1/integrations/${c.id}/test`)).body).toMatchObject({ ok: false, statusCode: 404 });

    const page = await h.call('GET', `/admin/v1/integrations/${c.id}/activity`);
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(50);
    expect(page.body[0]).toEqual({ at: expect.any(String), direction: 'out', issueId: null, action: 'test', outcome: 'failed', statusCode: 404, error: expect.stringMatching(/404/), externalKey: null });
    const most = (await h.call('GET', `/admin/v1/integrations/${c.id}/activity?limit=200`)).body as any[];
    expect(most).toHaveLength(200);
    expect(most.slice(1).every((a) => a.outcome === 'succeeded')).toBe(true);
    const times = most.map((a) => Date.parse(a.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('answers 404 for the links of an unknown issue and [] for an issue without links', async () => {
    expect((await h.call('GET', `/admin/v1/issues/${randomUUID()}/links`)).status).toBe(404);
    const issue = await h.fileIssue(randomUUID(), randomUUID());
    const res = await h.call('GET', `/admin/v1/issues/${issue.id}/links`);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: [] });
  });
});

describe('access', () => {
  it('answers only the operator: 401 without a caller, 403 for an API key', async () => {
    const orgId = randomUUID();
    const c = await connect(h, orgId, { kind: 'slack', name: 'Guarded', config: {}, credentials: { webhookUrl: slack.webhookUrl('#guarded') } });
    const routes: Array<[string, string, unknown]> = [
      ['POST', integrations(orgId), { kind: 'slack', name: 'X', config: {}, credentials: { webhookUrl: slack.webhookUrl() } }],
      ['GET', integrations(orgId), undefined],
      ['PATCH', `/admin/v1/integrations/${c.id}`, { name: 'Taken over' }],
      ['DELETE', `/admin/v1/integrations/${c.id}`, undefined],
      ['POST', `/admin/v1/integrations/${c.id}/test`, undefined],
      ['GET', `/admin/v1/integrations/${c.id}/activity`, undefined],
      ['GET', `/admin/v1/issues/${randomUUID()}/links`, undefined],
    ];
    const apiKey = { kind: 'api-key', orgId, keyId: randomUUID(), keyName: 'ci' } as const;
    for (const [method, path, body] of routes) {
      expect({ method, path, status: (await h.call(method, path, { as: null, body })).status }).toEqual({ method, path, status: 401 });
      expect({ method, path, status: (await h.call(method, path, { as: apiKey, body })).status }).toEqual({ method, path, status: 403 });
    }
    expect(await connectionOf(h, orgId, c.id)).toEqual(c);
    expect(slack.messages.filter((m) => m.channel === '#guarded')).toHaveLength(0);
  });
});
