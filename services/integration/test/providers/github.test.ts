import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGithub, type FakeGithub } from '@preflight/provider-fakes';
import { githubProvider, type GithubConfig } from '../../src/providers/github/index.ts';
import { markerOf, ProviderError, type IssueDetail, type TrackerClient } from '../../src/providers/provider.ts';
import { failureOf, issueDetail as trackerIssue, safeFetches } from './chat-fixtures.ts';

const fetches = safeFetches();
const SECRET = 'whsec-github-test';
let github: FakeGithub;
let token: string;
let hookServer: Server;
let hookUrl: string;
const received: Array<{ headers: IncomingHttpHeaders; raw: Buffer }> = [];
let repoCount = 0;
let config: GithubConfig;

beforeAll(async () => {
  github = await startFakeGithub();
  token = github.addToken();
  hookServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/integrations/v1/hooks/conn-1`;
  github.registerHook(hookUrl, SECRET);
});
afterAll(async () => {
  await github.close();
  await new Promise((resolve) => hookServer.close(resolve));
});
// Every test gets a repository of its own, so issue numbers and searches do not mix.
beforeEach(() => {
  github.setBehaviour({ mode: 'normal' });
  github.setRateLimit(null);
  github.setSearchLag(0);
  config = { owner: 'acme', repo: `shop-${++repoCount}`, apiBaseUrl: github.url, labels: ['preflight'] };
  github.createRepo(config.owner, config.repo);
});

const client = (over: Partial<GithubConfig> = {}, opts: { timeoutMs?: number; token?: string } = {}): TrackerClient =>
  githubProvider.client({ ...config, ...over }, { token: opts.token ?? token }, fetches.create(opts.timeoutMs ?? 5_000));


/** The shared tracker issue, at the severity these tests label. */
const issueDetail = (overrides: Partial<IssueDetail> = {}): IssueDetail => trackerIssue({ severity: 'High', ...overrides });

const patches = () => github.requests.filter((r) => r.method === 'PATCH' && r.url.includes(`/${config.repo}/`));
const taken = new Set<string>();
/** The next webhook delivery (not taken before) for issue `number` of this test's repository. */
async function hookFor(number: number, action: string) {
  const delivery = await github.waitForDelivery(
    (d) =>
      !taken.has(d.deliveryId) &&
      (d.payload.repository as { name: string }).name === config.repo &&
      (d.payload.issue as { number: number }).number === number &&
      d.payload.action === action,
    5_000,
  );
  taken.add(delivery.deliveryId);
  return delivery;
}
const rawDelivery = (deliveryId: string) => received.find((r) => r.headers['x-github-delivery'] === deliveryId) ?? { headers: {}, raw: Buffer.alloc(0) };

describe('GitHub connection settings', () => {
  it('takes owner, repo, an optional API base URL and labels, and a token', () => {
    const { configSchema, credentialsSchema } = githubProvider;
    expect(configSchema.safeParse({ owner: 'acme', repo: 'shop.web', labels: ['qa'] }).success).toBe(true);
    expect(configSchema.safeParse({ owner: 'acme', repo: 'shop', apiBaseUrl: 'https://ghe.acme.test/api/v3' }).success).toBe(true);
    expect(configSchema.safeParse({ owner: '-acme', repo: 'shop' }).error?.issues[0]).toMatchObject({ path: ['owner'], message: 'Must be a GitHub user or organisation name.' });
    expect(configSchema.safeParse({ owner: 'acme', repo: '..' }).error?.issues[0]?.message).toBe('Must be a GitHub repository name.');
    expect(configSchema.safeParse({ owner: 'acme' }).error?.issues[0]).toMatchObject({ path: ['repo'], message: 'Is required.' });
    expect(configSchema.safeParse({ owner: 'acme', repo: 'shop', apiBaseUrl: 'ftp://ghe.acme.test' }).error?.issues[0]?.message).toMatch(/^Must be an absolute http\(s\) URL/);
    expect(configSchema.safeParse({ owner: 'acme', repo: 'shop', labels: ['x'.repeat(51)] }).error?.issues[0]?.message).toBe('Must be at most 50 characters.');
    expect(configSchema.safeParse({ owner: 'acme', repo: 'shop', labels: Array(21).fill('qa') }).error?.issues[0]?.message).toBe('Must be at most 20 labels.');
    expect(configSchema.safeParse({ owner: 'acme', repo: 'shop', project: 1 }).error?.issues[0]?.message).toBe('Must have no properties besides owner, repo, apiBaseUrl and labels.');
    expect(credentialsSchema.safeParse({ token: 'ghp_abc' }).success).toBe(true);
    expect(credentialsSchema.safeParse({ token: '' }).error?.issues[0]?.message).toBe('Must not be empty.');
    expect(credentialsSchema.safeParse({ token: 'x'.repeat(256) }).error?.issues[0]?.message).toBe('Must be at most 255 characters.');
  });

  it('calls api.github.com unless an API base URL is given', () => {
    expect(githubProvider.urls({ owner: 'acme', repo: 'shop' }, { token: 't' })).toEqual(['https://api.github.com']);
    expect(githubProvider.urls({ owner: 'acme', repo: 'shop', apiBaseUrl: 'https://ghe.acme.test/api/v3/' }, { token: 't' })).toEqual(['https://ghe.acme.test/api/v3']);
  });
});

describe('GitHub issues', () => {
  it('tests the connection by reading the repository, on github.com and GitHub Enterprise Server paths', async () => {
    expect(await client().test()).toEqual({ statusCode: 200, detail: `acme/${config.repo} is reachable` });
    expect(await client({ apiBaseUrl: `${github.url}/api/v3` }).test()).toEqual({ statusCode: 200, detail: `acme/${config.repo} is reachable` });
    expect(github.requests.at(-1)?.url).toBe(`/api/v3/repos/acme/${config.repo}`);
  });

  it('creates the issue with its title, labels, every field and the marker', async () => {
    const issue = issueDetail({ title: 'Checkout button does nothing' });
    const link = await client().create(issue);

    const [made] = github.issues('acme', config.repo);
    expect(link).toEqual({ externalId: '1', externalKey: `acme/${config.repo}#1`, url: `https://github.com/acme/${config.repo}/issues/1`, state: 'open' });
    expect(made?.title).toBe(`[#${issue.seqNumber}] Checkout button does nothing`);
    expect(made?.labels).toEqual(['preflight', 'severity: High', 'type: Bug']);
    const body = made?.body ?? '';
    for (const text of ['Clicking "Pay" does nothing.', '2. Press Pay', 'The payment page opens.', 'Nothing happens.', 'Checkout', 'https://shop.example.com/checkout?step=2']) {
      expect(body).toContain(text);
    }
    for (const text of ['Firefox 128', 'macOS 14', 'Desktop', '1920x1080', '![Screenshot](https://cdn.preflight.test/shots/1.png)', 'tess@example.com', 'Spring release', 'High', 'Bug', issue.link]) {
      expect(body).toContain(text);
    }
    expect(body.split(markerOf(issue.issueId)).length - 1).toBe(1);
    expect(github.requests.find((r) => r.method === 'POST')?.headers.authorization).toBe(`token ${token}`);
  });

  it('leaves out empty fields and labels it has no value for, and cuts a title GitHub would refuse', async () => {
    const issue = issueDetail({ title: 'x'.repeat(300), severity: null, type: null, description: null, screenshotUrl: null, deviceType: null });
    await client({ labels: undefined }).create(issue);
    const [made] = github.issues('acme', config.repo);
    expect(made?.title).toHaveLength(256);
    expect(made?.labels).toEqual([]);
    expect(made?.body).not.toMatch(/Description|Screenshot|Device|Severity/);
  });

  it('finds the issue made for a Preflight issue again, fresh or old, and nothing for another', async () => {
    const issue = issueDetail();
    const link = await client().create(issue);
    // Fresh: the search index has not seen it yet, the newest issues have.
    github.setSearchLag(60_000);
    expect(await client().findByMarker(issue.issueId)).toEqual(link);

    github.setSearchLag(0);
    for (let i = 0; i < 31; i++) await client().create(issueDetail({ description: `Quotes ${markerOf(issue.issueId)} in its text` }));
    expect(await client().findByMarker(issue.issueId)).toEqual(link);
    expect(github.requests.some((r) => r.url.startsWith('/search/issues?') && decodeURIComponent(r.url).includes(`"${markerOf(issue.issueId)}" repo:acme/${config.repo} in:body is:issue`))).toBe(true);
    expect(await client().findByMarker(issueDetail().issueId)).toBeNull();
  });

  it('closes the issue as completed or not planned and reopens it, and makes no call when it is already there', async () => {
    const link = await client().create(issueDetail());
    const fixed = await client().syncStatus(link, 'Fixed', null);
    expect(fixed).toEqual({ ...link, state: 'closed:completed' });
    expect(github.issues('acme', config.repo)[0]).toMatchObject({ state: 'closed', state_reason: 'completed' });

    const before = patches().length;
    expect(await client().syncStatus(link, 'RetestFixed', null)).toBeNull();
    expect(patches()).toHaveLength(before);

    expect(await client().syncStatus(link, 'WontFix', 'out of scope')).toEqual({ ...link, state: 'closed:not_planned' });
    expect(github.issues('acme', config.repo)[0]).toMatchObject({ state: 'closed', state_reason: 'not_planned' });
    expect(await client().syncStatus(link, 'InProgress', null)).toEqual({ ...link, state: 'open' });
    expect(github.issues('acme', config.repo)[0]).toMatchObject({ state: 'open', state_reason: 'reopened' });
    expect(await client().syncStatus(link, 'Acknowledged', null)).toBeNull();

    await github.closeIssue('acme', config.repo, 1, 'duplicate');
    expect(await client().syncStatus(link, 'Duplicate', null)).toBeNull();
  });
});

describe('GitHub create interrupted', () => {
  it('finds the issue a create made when the answer never came back', async () => {
    const issue = issueDetail();
    const held = github.holdNextCreate();
    const failed = failureOf(client({}, { timeoutMs: 500 }).create(issue));
    const made = await held.created;
    expect(await failed).toMatchObject({ kind: 'unavailable' });
    held.release();
    expect(await client().findByMarker(issue.issueId)).toMatchObject({ externalId: String(made.number), state: 'open' });
    expect(github.issues('acme', config.repo)).toHaveLength(1);
  });
});

describe('GitHub fake refuses what GitHub refuses', () => {
  const call = async (method: string, path: string, body?: unknown, auth: string | null = `Bearer ${token}`) => {
    const response = await fetch(`${github.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as { message: string; errors?: unknown[] } };
  };

  it('answers 401 without or with a wrong token, 422 for a missing title or a state GitHub does not have', async () => {
    expect(await call('GET', `/repos/acme/${config.repo}`, undefined, null)).toMatchObject({ status: 401, body: { message: 'Requires authentication' } });
    expect(await call('GET', `/repos/acme/${config.repo}`, undefined, 'token nope')).toMatchObject({ status: 401, body: { message: 'Bad credentials' } });
    expect((await call('POST', `/repos/acme/${config.repo}/issues`, { body: 'no title' })).status).toBe(422);
    expect(await call('POST', `/repos/acme/${config.repo}/issues`, { title: ' ' })).toMatchObject({ status: 422, body: { message: 'Validation Failed', errors: [{ field: 'title', code: 'missing_field' }] } });
    expect((await call('POST', `/repos/acme/${config.repo}/issues`, { title: 'ok', labels: 'bug' })).status).toBe(422);
    expect((await call('POST', `/repos/acme/${config.repo}/issues`, { title: 'ok', labels: ['bug'] })).status).toBe(201);
    expect((await call('PATCH', `/repos/acme/${config.repo}/issues/1`, { state: 'done' })).status).toBe(422);
    expect((await call('PATCH', `/repos/acme/${config.repo}/issues/1`, { state: 'closed', state_reason: 'fixed' })).status).toBe(422);
    expect((await call('GET', '/search/issues?q=')).status).toBe(422);
  });
});

describe('GitHub refusals', () => {
  it('reports a refused token as a credentials problem, without the token', async () => {
    const revoked = github.addToken();
    github.revokeToken(revoked);
    const err = await failureOf(client({}, { token: revoked }).test());
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'credentials', statusCode: 401 });
    expect(err.message).toContain('Bad credentials');
    expect(err.message).not.toContain(revoked);

    const readOnly = github.addToken(undefined, { readOnly: true });
    expect(await failureOf(client({}, { token: readOnly }).create(issueDetail()))).toMatchObject({ kind: 'credentials', statusCode: 403 });
  });

  it('waits for the rate limit reset or Retry-After', async () => {
    github.setRateLimit({ kind: 'primary', resetInSeconds: 120 });
    const primary = (await failureOf(client().test())) as ProviderError;
    expect(primary).toMatchObject({ kind: 'rate-limited', statusCode: 403 });
    expect(primary.retryAfterMs).toBeGreaterThan(115_000);
    expect(primary.retryAfterMs).toBeLessThanOrEqual(121_000);

    github.setRateLimit({ kind: 'secondary', retryAfterSeconds: 7 });
    expect(await failureOf(client().create(issueDetail()))).toMatchObject({ kind: 'rate-limited', statusCode: 429, retryAfterMs: 7_000 });
  });

  it('retries a server error or no answer, and refuses an unknown repository or a redirect', async () => {
    github.setBehaviour({ mode: 'status', status: 502 });
    expect(await failureOf(client().test())).toMatchObject({ kind: 'unavailable', statusCode: 502 });

    github.setBehaviour({ mode: 'hang' });
    const started = Date.now();
    expect(await failureOf(client({}, { timeoutMs: 300 }).test())).toMatchObject({ kind: 'unavailable', message: 'no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(3_000);

    github.setBehaviour({ mode: 'normal' });
    expect(await failureOf(client({ repo: 'gone' }).test())).toMatchObject({ kind: 'rejected', statusCode: 404 });
    expect(await failureOf(client().syncStatus({ externalId: '99', externalKey: 'x', url: 'x', state: 'open' }, 'Fixed', null))).toMatchObject({ kind: 'rejected', statusCode: 404 });

    github.setBehaviour({ mode: 'status', status: 301 });
    expect(await failureOf(client().test())).toMatchObject({ kind: 'rejected', statusCode: 301 });
  });
});

describe('GitHub webhooks', () => {
  const hooks = githubProvider.hooks;

  it('accepts what GitHub signs with the secret, and nothing else', async () => {
    const link = await client().create(issueDetail());
    expect(await github.closeIssue('acme', config.repo, Number(link.externalId), 'completed')).toBe(202);
    const { headers, raw } = rawDelivery((await hookFor(1, 'closed')).deliveryId);

    expect(hooks.verify(headers, raw, SECRET)).toBe(true);
    expect(hooks.verify(headers, raw, 'another-secret')).toBe(false);
    expect(hooks.verify(headers, Buffer.from(raw.toString('utf8').replace('"closed"', '"reopened"')), SECRET)).toBe(false);
    expect(hooks.verify({ ...headers, 'x-hub-signature-256': undefined }, raw, SECRET)).toBe(false);
    expect(hooks.verify({ ...headers, 'x-hub-signature-256': 'sha256=zz' }, raw, SECRET)).toBe(false);
    expect(hooks.verify({ ...headers, 'x-hub-signature-256': String(headers['x-hub-signature']) }, raw, SECRET)).toBe(false);
  });

  it('reads closes and reopens of the connected repository, in the states create and syncStatus report', async () => {
    const link = await client().create(issueDetail());
    const parsed = async (action: string) => {
      const { headers, raw } = rawDelivery((await hookFor(1, action)).deliveryId);
      return hooks.parse(headers, JSON.parse(raw.toString('utf8')), config);
    };
    await github.closeIssue('acme', config.repo, 1, 'not_planned');
    expect(await parsed('closed')).toEqual({ externalId: '1', externalKey: link.externalKey, state: 'closed:not_planned', change: { kind: 'closed-not-planned' } });
    await github.reopenIssue('acme', config.repo, 1);
    expect(await parsed('reopened')).toEqual({ externalId: '1', externalKey: link.externalKey, state: 'open', change: { kind: 'reopened' } });

    // A change the service makes comes back as a webhook whose state matches what syncStatus said.
    const synced = await client().syncStatus(link, 'Fixed', null);
    const echo = await parsed('closed');
    expect(echo).toMatchObject({ state: synced?.state, change: { kind: 'closed-completed' } });
  });

  it('ignores other repositories, other events and other actions', async () => {
    const event = { 'x-github-event': 'issues' };
    const payload = (over: Record<string, unknown> = {}) => ({
      action: 'closed',
      issue: { number: 4, state: 'closed', state_reason: null },
      repository: { full_name: `ACME/${config.repo.toUpperCase()}` },
      ...over,
    });
    expect(hooks.parse(event, payload(), config)).toMatchObject({ externalId: '4', state: 'closed:completed', change: { kind: 'closed-completed' } });
    expect(hooks.parse({ 'X-GitHub-Event': 'issues' }, payload({ issue: { number: 4, state_reason: 'not_planned' } }), config)).toMatchObject({ change: { kind: 'closed-not-planned' } });
    expect(hooks.parse(event, payload({ repository: { full_name: 'acme/other' } }), config)).toBeNull();
    expect(hooks.parse({ 'x-github-event': 'issue_comment' }, payload(), config)).toBeNull();
    expect(hooks.parse(event, payload({ action: 'edited' }), config)).toBeNull();
    expect(hooks.parse(event, 'closed', config)).toBeNull();
  });
});
