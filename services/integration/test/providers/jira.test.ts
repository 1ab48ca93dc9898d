import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeJira, type FakeJira, startFakeServer, type FakeServer, type RecordedRequest } from '@preflight/provider-fakes';
import { jiraProvider } from '../../src/providers/jira/index.ts';
import type { JiraConfig } from '../../src/providers/jira/schema.ts';
import { markerOf, ProviderError } from '../../src/providers/provider.ts';
import { failureOf, issueDetail, safeFetches } from './chat-fixtures.ts';

const fetches = safeFetches();
let jira: FakeJira;
let receiver: FakeServer;
let config: JiraConfig;
const SECRET = 'jira-hook-secret';

beforeAll(async () => {
  jira = await startFakeJira({ email: 'qa-bot@example.com', apiToken: 'tok-123' });
  jira.createProject('PREF');
  receiver = await startFakeServer(() => ({ status: 200, body: 'ok' }));
  jira.registerHook(`${receiver.url}/integrations/v1/hooks/c1`, SECRET);
  config = { baseUrl: `${jira.url}/`, projectKey: 'PREF' };
});
afterAll(async () => {
  await jira.close();
  await receiver.close();
});
beforeEach(() => jira.setBehaviour({ mode: 'normal' }));


const client = (timeoutMs = 5_000, over: Partial<JiraConfig> = {}) => jiraProvider.client({ ...config, ...over }, { email: 'qa-bot@example.com', apiToken: jira.apiToken }, fetches.create(timeoutMs));
const adfText = (node: unknown): string => {
  const n = node as { text?: string; content?: unknown[] };
  return (n.text ?? '') + (n.content ?? []).map(adfText).join(' ');
};
const hookFor = (key: string, status: string) => receiver.waitForRequest((r) => r.body.includes(`"key":"${key}"`) && r.body.includes(`"toString":"${status}"`), 5_000);
const bodyOf = (r: RecordedRequest) => JSON.parse(r.body) as unknown;

describe('Jira connection settings', () => {
  it('takes a site URL and project key, refuses anything else with a sentence, and calls only the site', () => {
    expect(jiraProvider.configSchema.safeParse({ baseUrl: 'https://acme.atlassian.net', projectKey: 'PREF', statusMap: { 'QA Review': 'RetestRequested' } }).success).toBe(true);
    expect(jiraProvider.configSchema.safeParse({ baseUrl: 'https://acme.atlassian.net', projectKey: 'pref' }).error?.issues[0]?.message).toMatch(/^Must be a Jira project key/);
    expect(jiraProvider.configSchema.safeParse({ baseUrl: 'https://acme.atlassian.net', projectKey: 'PREF', statusMap: { Done: 'Finished' } }).error?.issues[0]?.message).toMatch(/^Must be one of: New, /);
    expect(jiraProvider.configSchema.safeParse({ baseUrl: 'https://acme.atlassian.net', projectKey: 'PREF', repo: 'x' }).error?.issues[0]?.message).toMatch(/^Must have no properties besides/);
    expect(jiraProvider.credentialsSchema.safeParse({ email: 'not-an-email', apiToken: 'x' }).error?.issues[0]?.message).toMatch(/^Must be /);
    expect(jiraProvider.urls({ baseUrl: 'https://acme.atlassian.net/', projectKey: 'PREF' }, { email: 'a@b.co', apiToken: 'x' })).toEqual(['https://acme.atlassian.net']);
  });
});

describe('Jira issues', () => {
  it('reads the project as the connection test', async () => {
    expect(await client().test()).toEqual({ statusCode: 200, detail: 'Project PREF (Project PREF) is readable.' });
    const missing = await failureOf(client(5_000, { projectKey: 'NOPE' }).test());
    expect(missing).toMatchObject({ kind: 'rejected', statusCode: 404 });
    expect(missing.message).toContain("No project could be found with key 'NOPE'");
  });

  it('creates the issue with its summary, ADF description, labels, marker and priority, in its first status', async () => {
    const issue = issueDetail({ title: 'Pay   button\nbroken' });
    const made = await client().create(issue);
    const stored = await jira.waitForIssue((i) => i.id === made.externalId, 5_000);
    expect(made).toEqual({ externalId: stored.id, externalKey: stored.key, url: `${jira.url}/browse/${stored.key}`, state: 'To Do' });
    expect(stored).toMatchObject({ projectKey: 'PREF', issueType: 'Task', summary: `[#${issue.seqNumber}] Pay button broken`, priority: 'Highest', labels: ['preflight', `preflight-${issue.issueId}`] });
    const text = adfText(stored.description);
    for (const part of ['Clicking "Pay" does nothing.', 'Tried twice.', 'Press Pay', 'Nothing happens.', 'Firefox 128', 'macOS 14', 'Spring release', 'tess@example.com', markerOf(issue.issueId)]) expect(text).toContain(part);
    const req = await jira.waitForRequest((r) => r.method === 'POST' && r.url === '/rest/api/3/issue');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('qa-bot@example.com:tok-123').toString('base64')}`);
  });

  it('maps every severity to a Jira priority and leaves it out without one', async () => {
    const expected = { High: 'High', Medium: 'Medium', Low: 'Low', Trivial: 'Lowest' } as const;
    for (const [severity, priority] of Object.entries(expected)) {
      const made = await client().create(issueDetail({ severity }));
      expect(jira.issues().find((i) => i.id === made.externalId)?.priority).toBe(priority);
    }
    await client().create(issueDetail({ severity: null }));
    const sent = JSON.parse(jira.requests.filter((r) => r.url === '/rest/api/3/issue').at(-1)?.body ?? '{}') as { fields: Record<string, unknown> };
    expect(sent.fields).not.toHaveProperty('priority');
  });

  it('finds the issue made for a Preflight issue by its marker label, and nothing for another', async () => {
    const issue = issueDetail();
    const made = await client().create(issue);
    expect(await client().findByMarker(issue.issueId)).toEqual(made);
    expect(await client().findByMarker('6f1c2d3e-0000-4000-8000-00000000ffff')).toBeNull();
    const search = await jira.waitForRequest((r) => r.url === '/rest/api/3/search/jql' && r.body.includes(issue.issueId));
    expect(JSON.parse(search.body)).toMatchObject({ jql: `project = "PREF" AND labels = "preflight-${issue.issueId}"` });
  });

  it('is refused with what Jira said when the issue type does not exist', async () => {
    const err = await failureOf(client(5_000, { issueType: 'Nope' }).create(issueDetail()));
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'rejected', statusCode: 400 });
    expect(err.message).toContain('issuetype: Specify a valid issue type');
  });
});

describe('Jira status sync', () => {
  it('moves the issue through the transition to each group and does nothing when it is there already', async () => {
    const c = client();
    const made = await c.create(issueDetail());
    const statusNow = () => jira.issues().find((i) => i.id === made.externalId)?.status;
    expect(await c.syncStatus(made, 'InProgress', null)).toEqual({ ...made, state: 'In Progress' });
    expect(statusNow()).toBe('In Progress');
    expect(await c.syncStatus(made, 'RetestFailed', null)).toBeNull(); // open group, already open
    expect(await c.syncStatus(made, 'Closed', null)).toEqual({ ...made, state: 'Done' });
    expect(await c.syncStatus(made, 'Fixed', null)).toBeNull();
    expect(await c.syncStatus(made, 'Duplicate', 'same as #3')).toEqual({ ...made, state: "Won't Do" });
    expect(await c.syncStatus(made, 'Acknowledged', null)).toEqual({ ...made, state: 'To Do' });
    expect(statusNow()).toBe('To Do');
    expect(await c.syncStatus(made, 'New', null)).toBeNull(); // no exact match in the workflow; To Do is open
    const before = jira.requests.length;
    expect(await c.syncStatus(made, 'Acknowledged', null)).toBeNull();
    expect(jira.requests.slice(before).map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual([`GET /rest/api/3/issue/${made.externalId}`]);
  });

  it('is refused, naming both statuses, when no transition leads to a status of the target group', async () => {
    const c = client(5_000, { statusMap: { "Won't Do": 'Closed' } });
    const made = await c.create(issueDetail());
    const err = await failureOf(c.syncStatus(made, 'WontFix', null));
    expect(err).toMatchObject({ kind: 'rejected' });
    expect(err.message).toContain('"To Do"');
    expect(err.message).toContain('WontFix');
  });

  it('reports its own transition back through the webhook with the state it returned', async () => {
    const c = client();
    const made = await c.create(issueDetail());
    const moved = await c.syncStatus(made, 'Fixed', null);
    const hook = await hookFor(made.externalKey, 'Done');
    expect(jiraProvider.hooks.verify(hook.headers, Buffer.from(hook.body), SECRET)).toBe(true);
    expect(jiraProvider.hooks.parse(hook.headers, bodyOf(hook), config)?.state).toBe(moved?.state);
  });
});

describe('Jira failures', () => {
  it('needs attention when the token is refused, without showing it', async () => {
    const c = client();
    const issue = issueDetail();
    const token = jira.apiToken;
    jira.revokeToken();
    const err = await failureOf(c.create(issue));
    expect(err).toMatchObject({ kind: 'credentials', statusCode: 401 });
    expect(err.message).not.toContain(token);
    expect(jira.issues().some((i) => i.labels.includes(`preflight-${issue.issueId}`))).toBe(false);
  });

  it('waits as Jira asks on 429, retries 5xx and silence, and refuses redirects', async () => {
    jira.setBehaviour({ mode: 'status', status: 429, retryAfterSeconds: 7 });
    expect(await failureOf(client().test())).toMatchObject({ kind: 'rate-limited', statusCode: 429, retryAfterMs: 7_000 });
    jira.setBehaviour({ mode: 'status', status: 503 });
    expect(await failureOf(client().test())).toMatchObject({ kind: 'unavailable', statusCode: 503 });
    jira.setBehaviour({ mode: 'status', status: 302 });
    expect(await failureOf(client().test())).toMatchObject({ kind: 'rejected', statusCode: 302 });
    jira.setBehaviour({ mode: 'hang' });
    const err = await failureOf(client(300).test());
    expect(err).toMatchObject({ kind: 'unavailable' });
    expect(err.message).toContain('300 ms');
  });

  it('finds the issue a timed-out create made, so a retry does not make a second one', async () => {
    const issue = issueDetail();
    const hold = jira.holdNextCreate();
    try {
      expect(await failureOf(client(300).create(issue))).toMatchObject({ kind: 'unavailable' });
      const found = await client().findByMarker(issue.issueId);
      expect(found?.externalKey).toMatch(/^PREF-\d+$/);
    } finally {
      hold.release();
    }
  });

  it('refuses addresses the rules refuse before calling', async () => {
    const err = await failureOf(jiraProvider.client(config, { email: 'qa-bot@example.com', apiToken: jira.apiToken }, fetches.create(5_000, false)).test());
    expect(err).toMatchObject({ kind: 'rejected' });
  });
});

describe('the Jira fake', () => {
  it('refuses what Jira refuses: missing fields, a description that is not ADF, unknown priorities, labels with spaces', async () => {
    const post = (fields: Record<string, unknown>) =>
      fetch(`${jira.url}/rest/api/3/issue`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`qa-bot@example.com:${jira.apiToken}`).toString('base64')}` }, body: JSON.stringify({ fields }) });
    const valid = { project: { key: 'PREF' }, issuetype: { name: 'Task' }, summary: 'x' };
    const errorsOf = async (fields: Record<string, unknown>) => {
      const res = await post(fields);
      expect(res.status).toBe(400);
      return ((await res.json()) as { errors: Record<string, string> }).errors;
    };
    expect(await errorsOf({ issuetype: { name: 'Task' } })).toMatchObject({ project: expect.any(String), summary: expect.any(String) });
    expect(await errorsOf({ ...valid, description: 'plain text' })).toHaveProperty('description');
    expect(await errorsOf({ ...valid, description: { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text: '' }] }] } })).toHaveProperty('description');
    expect(await errorsOf({ ...valid, priority: { name: 'Urgent' } })).toHaveProperty('priority');
    expect(await errorsOf({ ...valid, labels: ['two words'] })).toEqual({ labels: "The label 'two words' contains spaces which is invalid." });
  });
});

describe('Jira inbound hooks', () => {
  let hook: RecordedRequest;
  beforeAll(async () => {
    const made = await client().create(issueDetail());
    expect(await jira.transitionIssue(made.externalKey, 'In Progress')).toBe(200);
    hook = await hookFor(made.externalKey, 'In Progress');
  });

  it('accepts only the body signed with the connection secret', () => {
    const raw = Buffer.from(hook.body);
    expect(jiraProvider.hooks.verify(hook.headers, raw, SECRET)).toBe(true);
    expect(jiraProvider.hooks.verify(hook.headers, raw, 'another-secret')).toBe(false);
    expect(jiraProvider.hooks.verify(hook.headers, Buffer.from(hook.body.replace('In Progress', 'Done')), SECRET)).toBe(false);
    expect(jiraProvider.hooks.verify({ ...hook.headers, 'x-hub-signature': undefined }, raw, SECRET)).toBe(false);
    expect(jiraProvider.hooks.verify({ ...hook.headers, 'x-hub-signature': 'sha256=abc' }, raw, SECRET)).toBe(false);
  });

  it('reads a status change of the project as a mapped state, unmapped names as null, and ignores the rest', () => {
    const body = bodyOf(hook) as { issue: { id: string; key: string }; changelog: { items: Array<{ toString: string }> }; webhookEvent: string };
    expect(jiraProvider.hooks.parse(hook.headers, body, config)).toEqual({
      externalId: body.issue.id,
      externalKey: body.issue.key,
      state: 'In Progress',
      change: { kind: 'mapped', name: 'In Progress', to: 'InProgress' },
    });
    const review = structuredClone(body);
    review.changelog.items[0]!.toString = 'QA Review';
    expect(jiraProvider.hooks.parse(hook.headers, review, config)?.change).toEqual({ kind: 'mapped', name: 'QA Review', to: null });
    expect(jiraProvider.hooks.parse(hook.headers, review, { ...config, statusMap: { 'qa review': 'RetestRequested' } })?.change).toEqual({ kind: 'mapped', name: 'QA Review', to: 'RetestRequested' });
    expect(jiraProvider.hooks.parse(hook.headers, body, { ...config, projectKey: 'OTHER' })).toBeNull();
    expect(jiraProvider.hooks.parse(hook.headers, { ...body, webhookEvent: 'jira:issue_created' }, config)).toBeNull();
    expect(jiraProvider.hooks.parse(hook.headers, { ...body, changelog: { items: [{ field: 'summary', toString: 'x' }] } }, config)).toBeNull();
  });
});
