import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLinear, type FakeLinear, startFakeServer, type FakeServer, type RecordedRequest } from '@preflight/provider-fakes';
import { linearProvider } from '../../src/providers/linear/index.ts';
import { linearIssueIdOf, type LinearConfig } from '../../src/providers/linear/schema.ts';
import { markerOf } from '../../src/providers/provider.ts';
import { failureOf, issueDetail, safeFetches } from './chat-fixtures.ts';

const fetches = safeFetches();
const TEAM = '3b1f6c1e-0000-4000-8000-00000000e001';
const OTHER_TEAM = '3b1f6c1e-0000-4000-8000-00000000e002';
const SECRET = 'linear-hook-secret';
let linear: FakeLinear;
let receiver: FakeServer;
let config: LinearConfig;

beforeAll(async () => {
  linear = await startFakeLinear({ apiKey: 'lin_api_abc123' });
  linear.createTeam(TEAM, 'ENG', 'Engineering');
  receiver = await startFakeServer(() => ({ status: 200, body: 'ok' }));
  linear.registerHook(`${receiver.url}/integrations/v1/hooks/c2`, SECRET);
  config = { teamId: TEAM, apiUrl: linear.apiUrl };
});
afterAll(async () => {
  await linear.close();
  await receiver.close();
});
beforeEach(() => {
  linear.setBehaviour({ mode: 'normal' });
  linear.setRateLimited(false);
});


const client = (timeoutMs = 5_000, over: Partial<LinearConfig> = {}) => linearProvider.client({ ...config, ...over }, { apiKey: linear.apiKey }, fetches.create(timeoutMs));
const stateOf = (id: string) => linear.issues().find((i) => i.id === id)?.state.name;
const hookFor = (id: string, state: string) => receiver.waitForRequest((r) => r.body.includes(`"id":"${id}"`) && r.body.includes(`"name":"${state}"`), 5_000);
const sign = (body: string, secret = SECRET) => createHmac('sha256', secret).update(body).digest('hex');

describe('Linear connection settings', () => {
  it('takes a team id, refuses anything else with a sentence, and calls only the API URL', () => {
    expect(linearProvider.configSchema.safeParse({ teamId: TEAM, stateMap: { 'In Review': 'RetestRequested' } }).success).toBe(true);
    expect(linearProvider.configSchema.safeParse({ teamId: 'ENG' }).error?.issues[0]?.message).toMatch(/^Must be the Linear team's id/);
    expect(linearProvider.configSchema.safeParse({ teamId: TEAM, stateMap: { Done: 'Finished' } }).error?.issues[0]?.message).toMatch(/^Must be one of: /);
    expect(linearProvider.credentialsSchema.safeParse({ apiKey: 'has space' }).error?.issues[0]?.message).toMatch(/^Must be a Linear API key/);
    expect(linearProvider.urls({ teamId: TEAM }, { apiKey: 'k' })).toEqual(['https://api.linear.app/graphql']);
    expect(linearProvider.urls(config, { apiKey: 'k' })).toEqual([linear.apiUrl]);
  });

  it('derives a stable UUID v4 issue id from the Preflight issue id', () => {
    const id = linearIssueIdOf('6f1c2d3e-0000-4000-8000-000000000012');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(linearIssueIdOf('6f1c2d3e-0000-4000-8000-000000000012')).toBe(id);
    expect(linearIssueIdOf('6f1c2d3e-0000-4000-8000-000000000013')).not.toBe(id);
  });
});

describe('Linear issues', () => {
  it('reads the team as the connection test, sending the key as Linear documents', async () => {
    expect(await client().test()).toEqual({ statusCode: 200, detail: 'Team ENG (Engineering) is readable.' });
    const req = await linear.waitForRequest((r) => r.body.includes('PreflightTeam'));
    expect(req.headers.authorization).toBe('lin_api_abc123');
    expect(await failureOf(client(5_000, { teamId: OTHER_TEAM }).test())).toMatchObject({ kind: 'rejected' });
  });

  it('creates the issue under the derived id with title, markdown body, marker and priority', async () => {
    const issue = issueDetail();
    const made = await client().create(issue);
    const stored = await linear.waitForIssue((i) => i.id === made.externalId, 5_000);
    expect(made).toEqual({ externalId: linearIssueIdOf(issue.issueId), externalKey: stored.identifier, url: stored.url, state: 'Triage' });
    expect(stored).toMatchObject({ teamId: TEAM, title: `[#${issue.seqNumber}] ${issue.title}`, priority: 1 });
    for (const part of ['Clicking "Pay" does nothing.', 'Press Pay', 'Firefox 128', 'Spring release', markerOf(issue.issueId)]) expect(stored.description).toContain(part);
  });

  it('maps every severity to a Linear priority and leaves it out without one', async () => {
    for (const [severity, priority] of Object.entries({ High: 2, Medium: 3, Low: 4, Trivial: 0 })) {
      const made = await client().create(issueDetail({ severity }));
      expect(linear.issues().find((i) => i.id === made.externalId)?.priority).toBe(priority);
    }
    await client().create(issueDetail({ severity: null }));
    const sent = JSON.parse(linear.requests.filter((r) => r.body.includes('PreflightIssueCreate')).at(-1)?.body ?? '{}') as { variables: { input: object } };
    expect(sent.variables.input).not.toHaveProperty('priority');
  });

  it('finds the issue made for a Preflight issue, nothing for another, and never makes a second one', async () => {
    const issue = issueDetail();
    const made = await client().create(issue);
    expect(await client().findByMarker(issue.issueId)).toEqual(made);
    expect(await client().findByMarker('6f1c2d3e-0000-4000-8000-00000000ffff')).toBeNull();
    expect(await client().create(issue)).toEqual(made);
    expect(linear.issues().filter((i) => i.id === made.externalId)).toHaveLength(1);
  });

  it('finds the issue a timed-out create made', async () => {
    const issue = issueDetail();
    const hold = linear.holdNextCreate();
    try {
      expect(await failureOf(client(300).create(issue))).toMatchObject({ kind: 'unavailable' });
      expect((await client().findByMarker(issue.issueId))?.externalId).toBe(linearIssueIdOf(issue.issueId));
    } finally {
      hold.release();
    }
  });
});

describe('Linear status sync', () => {
  it('moves the issue to a state of each group and does nothing when it is there already', async () => {
    const c = client();
    const made = await c.create(issueDetail());
    expect(await c.syncStatus(made, 'New', null)).toBeNull();
    expect(await c.syncStatus(made, 'Acknowledged', null)).toEqual({ ...made, state: 'Todo' });
    expect(await c.syncStatus(made, 'InProgress', null)).toEqual({ ...made, state: 'In Progress' });
    expect(await c.syncStatus(made, 'RetestFailed', null)).toBeNull();
    expect(await c.syncStatus(made, 'Fixed', null)).toEqual({ ...made, state: 'Done' });
    expect(await c.syncStatus(made, 'Closed', null)).toBeNull();
    expect(await c.syncStatus(made, 'Duplicate', null)).toEqual({ ...made, state: 'Canceled' });
    expect(stateOf(made.externalId)).toBe('Canceled');
  });

  it('prefers the states the stateMap names', async () => {
    const c = client(5_000, { stateMap: { 'In Review': 'RetestRequested', Duplicate: 'Duplicate' } });
    const made = await c.create(issueDetail());
    expect((await c.syncStatus(made, 'RetestRequested', null))?.state).toBe('In Review');
    expect((await c.syncStatus(made, 'Duplicate', null))?.state).toBe('Duplicate');
  });

  it('reports its own update back through the webhook with the state it returned', async () => {
    const c = client();
    const made = await c.create(issueDetail());
    const moved = await c.syncStatus(made, 'InProgress', null);
    const hook = await hookFor(made.externalId, 'In Progress');
    expect(linearProvider.hooks.verify(hook.headers, Buffer.from(hook.body), SECRET)).toBe(true);
    expect(linearProvider.hooks.parse(hook.headers, JSON.parse(hook.body), config)?.state).toBe(moved?.state);
  });
});

describe('Linear failures', () => {
  it('needs attention when the key is refused, without showing it', async () => {
    const c = client();
    const key = linear.apiKey;
    linear.revokeKey();
    const err = await failureOf(c.test());
    expect(err).toMatchObject({ kind: 'credentials' });
    expect(err.message).not.toContain(key);
  });

  it('waits on RATELIMITED and 429, retries 5xx and silence', async () => {
    linear.setRateLimited(true, 20_000);
    const limited = await failureOf(client().test());
    expect(limited).toMatchObject({ kind: 'rate-limited' });
    expect((limited as unknown as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(15_000);
    linear.setRateLimited(false);
    linear.setBehaviour({ mode: 'status', status: 429, retryAfterSeconds: 9 });
    expect(await failureOf(client().test())).toMatchObject({ kind: 'rate-limited', statusCode: 429, retryAfterMs: 9_000 });
    linear.setBehaviour({ mode: 'status', status: 401 });
    expect(await failureOf(client().test())).toMatchObject({ kind: 'credentials', statusCode: 401 });
    linear.setBehaviour({ mode: 'status', status: 502 });
    expect(await failureOf(client().test())).toMatchObject({ kind: 'unavailable', statusCode: 502 });
    linear.setBehaviour({ mode: 'hang' });
    expect(await failureOf(client(300).test())).toMatchObject({ kind: 'unavailable' });
  });

  it('is refused when Linear does not accept the document or input', async () => {
    const err = await failureOf(client(5_000, { teamId: OTHER_TEAM }).create(issueDetail()));
    expect(err).toMatchObject({ kind: 'rejected' });
    expect(err.message).toContain('Could not find referenced Team.');
  });
});

describe('the Linear fake', () => {
  it('refuses documents outside Linear\'s schema and requests without the key, as Linear does', async () => {
    const post = (body: unknown, authorization = linear.apiKey) => fetch(linear.apiUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify(body) });
    const unknownField = await post({ query: `query { team(id: "${TEAM}") { id nickname } }` });
    expect(unknownField.status).toBe(400);
    expect(JSON.stringify(await unknownField.json())).toContain('Cannot query field \\"nickname\\" on type \\"Team\\"');
    const noKey = await post({ query: `query { team(id: "${TEAM}") { id } }` }, '');
    expect(((await noKey.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]?.extensions.code).toBe('AUTHENTICATION_ERROR');
    const bearer = await post({ query: `query { team(id: "${TEAM}") { id } }` }, `Bearer ${linear.apiKey}`);
    expect(bearer.status).toBe(400);
  });
});

describe('Linear inbound hooks', () => {
  let hook: RecordedRequest;
  let issueId: string;
  beforeAll(async () => {
    const made = await client().create(issueDetail());
    issueId = made.externalId;
    expect(await linear.moveIssue(made.externalId, 'Done')).toBe(200);
    hook = await hookFor(made.externalId, 'Done');
  });

  it('accepts only fresh bodies signed with the connection secret', () => {
    const raw = Buffer.from(hook.body);
    expect(linearProvider.hooks.verify(hook.headers, raw, SECRET)).toBe(true);
    expect(linearProvider.hooks.verify(hook.headers, raw, 'another-secret')).toBe(false);
    expect(linearProvider.hooks.verify(hook.headers, Buffer.from(hook.body.replace('"Done"', '"Todo"')), SECRET)).toBe(false);
    expect(linearProvider.hooks.verify({ ...hook.headers, 'linear-signature': undefined }, raw, SECRET)).toBe(false);
    const stale = hook.body.replace(/"webhookTimestamp":\d+/, `"webhookTimestamp":${Date.now() - 120_000}`);
    expect(linearProvider.hooks.verify({ 'linear-signature': sign(stale) }, Buffer.from(stale), SECRET)).toBe(false);
    const fresh = hook.body.replace(/"webhookTimestamp":\d+/, `"webhookTimestamp":${Date.now()}`);
    expect(linearProvider.hooks.verify({ 'linear-signature': sign(fresh) }, Buffer.from(fresh), SECRET)).toBe(true);
  });

  it('reads a state change of the team by stateMap or state type, and ignores the rest', () => {
    const body = JSON.parse(hook.body) as { data: { identifier: string; state: { name: string; type: string }; teamId: string }; updatedFrom: Record<string, unknown>; action: string };
    expect(linearProvider.hooks.parse(hook.headers, body, config)).toEqual({ externalId: issueId, externalKey: body.data.identifier, state: 'Done', change: { kind: 'mapped', name: 'Done', to: 'Fixed' } });
    expect(linearProvider.hooks.parse(hook.headers, body, { ...config, stateMap: { done: 'RetestRequested' } })?.change).toEqual({ kind: 'mapped', name: 'Done', to: 'RetestRequested' });
    const odd = structuredClone(body);
    odd.data.state = { name: 'Parked', type: 'custom' };
    expect(linearProvider.hooks.parse(hook.headers, odd, config)?.change).toEqual({ kind: 'mapped', name: 'Parked', to: null });
    expect(linearProvider.hooks.parse(hook.headers, body, { ...config, teamId: OTHER_TEAM })).toBeNull();
    expect(linearProvider.hooks.parse(hook.headers, { ...body, updatedFrom: { title: 'old' } }, config)).toBeNull();
    expect(linearProvider.hooks.parse(hook.headers, { ...body, action: 'create' }, config)).toBeNull();
  });
});
