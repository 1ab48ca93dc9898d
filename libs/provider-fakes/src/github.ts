import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { awaitableRecords } from './awaitable-records.ts';
import { heldCreate } from './held-create.ts';
import { startFakeServer, type FakeReply, type FakeServer, type RecordedRequest } from './fake-server.ts';
import {
  fullNameOf,
  GITHUB_CLOSE_REASONS,
  githubInvalid,
  githubIssueJson,
  githubIssueList,
  githubLabelsProblem,
  githubRefusal,
  githubRepoJson,
  githubSchemaRefusal,
  githubSearch,
  githubTextProblem,
  isObject,
  type GithubFakeCloseReason,
  type GithubFakeIssue,
  type GithubFakeRepo,
  type Json,
} from './github-api.ts';

export type { GithubFakeCloseReason, GithubFakeIssue } from './github-api.ts';

/**
 * GitHub's REST API for issues (docs.github.com/rest/issues, /rest/search#search-issues-and-pull-requests,
 * /webhooks/webhook-events-and-payloads#issues): repositories, issues (create, read, list,
 * update state), issue search, token auth and rate limits as GitHub answers them, and signed
 * `issues` webhooks for state changes, whether made through the API or by a user ("the UI").
 * Paths may carry GitHub Enterprise Server's `/api/v3` prefix.
 */

export interface GithubFakeDelivery {
  hookUrl: string;
  event: string;
  deliveryId: string;
  payload: Record<string, unknown>;
  /** What the hook answered; 0 when it could not be reached. */
  status: number;
}

export type GithubFakeRateLimit = { kind: 'primary'; resetInSeconds: number } | { kind: 'secondary'; retryAfterSeconds: number } | null;

export interface FakeGithub extends FakeServer {
  /** A token the API accepts (a fresh one unless given); `readOnly` tokens get 403 on writes. */
  addToken(token?: string, opts?: { login?: string; readOnly?: boolean }): string;
  revokeToken(token: string): void;
  createRepo(owner: string, repo: string): void;
  issues(owner: string, repo: string): GithubFakeIssue[];
  waitForIssue(match: (issue: GithubFakeIssue) => boolean, timeoutMs?: number): Promise<GithubFakeIssue>;
  /** A repository webhook for `issues` events (every repository's when `fullName` is left out). */
  registerHook(url: string, secret: string, fullName?: string): void;
  deliveries: GithubFakeDelivery[];
  waitForDelivery(match: (delivery: GithubFakeDelivery) => boolean, timeoutMs?: number): Promise<GithubFakeDelivery>;
  /** A user closes the issue on github.com; resolves with the status the (first) hook answered, 0 without one. */
  closeIssue(owner: string, repo: string, number: number, reason?: GithubFakeCloseReason): Promise<number>;
  reopenIssue(owner: string, repo: string, number: number): Promise<number>;
  /** Whether state changes made through the API fire webhooks too (they do on GitHub; on by default). */
  setApiWebhooks(on: boolean): void;
  /** Primary (403, `x-ratelimit-remaining: 0`) or secondary (429, `Retry-After`) limit on every call, until null. */
  setRateLimit(limit: GithubFakeRateLimit): void;
  /** Issues younger than `ms` are not found by search yet (GitHub's index lags). */
  setSearchLag(ms: number): void;
  /** The next POST …/issues creates the issue, then holds its answer until `release()`. */
  holdNextCreate(): { created: Promise<GithubFakeIssue>; release(): void };
}

export async function startFakeGithub(opts: { htmlBase?: string } = {}): Promise<FakeGithub> {
  const htmlBase = opts.htmlBase ?? 'https://github.com';
  const tokens = new Map<string, { login: string; readOnly: boolean }>();
  const repos = new Map<string, GithubFakeRepo>();
  const hooks: Array<{ url: string; secret: string; fullName?: string }> = [];
  const created = awaitableRecords<GithubFakeIssue>('GitHub issue');
  const deliveries = awaitableRecords<GithubFakeDelivery>('GitHub webhook delivery');
  let nextId = 1000;
  let apiWebhooks = true;
  let rateLimit: GithubFakeRateLimit = null;
  let searchLagMs = 0;
  const held = heldCreate<GithubFakeIssue>();

  const repoOf = (owner: string, name: string) => repos.get(`${owner}/${name}`.toLowerCase());
  const repoOfIssue = (issue: GithubFakeIssue) => repoOf(issue.owner, issue.repo) as GithubFakeRepo;
  const now = () => new Date().toISOString();
  const NOT_FOUND = githubRefusal(404, 'Not Found');

  async function deliver(hook: { url: string; secret: string }, action: string, issue: GithubFakeIssue, sender: string): Promise<number> {
    const repo = repoOfIssue(issue);
    const api = 'https://api.github.com';
    const payload = { action, issue: githubIssueJson(issue, repo, api), repository: githubRepoJson(repo, api, htmlBase), sender: { login: sender, id: 2, type: 'User' } };
    const body = JSON.stringify(payload);
    const deliveryId = randomUUID();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/fake',
      'x-github-event': 'issues',
      'x-github-delivery': deliveryId,
      'x-github-hook-id': '1',
      'x-hub-signature': `sha1=${createHmac('sha1', hook.secret).update(body).digest('hex')}`,
      'x-hub-signature-256': `sha256=${createHmac('sha256', hook.secret).update(body).digest('hex')}`,
    };
    let status: number;
    try {
      // GitHub gives a hook 10 s to answer.
      const response = await fetch(hook.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      status = response.status;
    } catch {
      status = 0;
    }
    deliveries.add({ hookUrl: hook.url, event: 'issues', deliveryId, payload, status });
    return status;
  }

  async function announce(action: string, issue: GithubFakeIssue, sender: string): Promise<number> {
    const name = `${issue.owner}/${issue.repo}`.toLowerCase();
    const targets = hooks.filter((h) => !h.fullName || h.fullName.toLowerCase() === name);
    const statuses = await Promise.all(targets.map((hook) => deliver(hook, action, issue, sender)));
    return statuses[0] ?? 0;
  }

  /** Moves the issue to `state`; the webhook action when the state changed, else null. */
  function setState(issue: GithubFakeIssue, state: 'open' | 'closed', reason: GithubFakeCloseReason | null): string | null {
    const changed = issue.state !== state;
    issue.updated_at = now();
    if (state === 'open') {
      if (changed) Object.assign(issue, { state, state_reason: 'reopened', closed_at: null });
      return changed ? 'reopened' : null;
    }
    Object.assign(issue, { state, state_reason: reason ?? (changed ? 'completed' : issue.state_reason), closed_at: changed ? issue.updated_at : issue.closed_at });
    return changed ? 'closed' : null;
  }

  function applyLabels(repo: GithubFakeRepo, labels: unknown): string[] {
    const names = [...new Set(((labels as unknown[] | undefined) ?? []).map((l) => String(isObject(l) ? l.name : l)))];
    for (const name of names) if (!repo.labels.has(name.toLowerCase())) repo.labels.set(name.toLowerCase(), { id: nextId++, name });
    return names.map((name) => (repo.labels.get(name.toLowerCase()) as { name: string }).name);
  }

  async function createIssue(repo: GithubFakeRepo, body: Json, login: string, base: string): Promise<FakeReply> {
    if (body.title === undefined) return githubSchemaRefusal('"title" wasn\'t supplied.');
    const problem = githubTextProblem('title', body.title, 256) ?? githubTextProblem('body', body.body, 65_536) ?? githubLabelsProblem(body.labels);
    if (problem) return problem;
    const number = repo.issues.length + 1;
    const at = now();
    const issue: GithubFakeIssue = {
      ...{ id: nextId++, number, owner: repo.owner, repo: repo.name, title: body.title as string, body: (body.body as string | undefined) ?? null },
      ...{ state: 'open', state_reason: null, labels: applyLabels(repo, body.labels), html_url: `${htmlBase}/${fullNameOf(repo)}/issues/${number}` },
      ...{ created_at: at, updated_at: at, closed_at: null, creator: login },
    };
    repo.issues.push(issue);
    created.add(issue);
    await held.hold(issue);
    return { status: 201, headers: { location: `${base}/repos/${fullNameOf(repo)}/issues/${number}` }, body: githubIssueJson(issue, repo, base) };
  }

  function updateIssue(issue: GithubFakeIssue, body: Json, login: string, base: string): FakeReply {
    if (body.state !== undefined && body.state !== 'open' && body.state !== 'closed') {
      return githubSchemaRefusal(`For 'properties/state', ${JSON.stringify(body.state)} is not one of ["open", "closed"].`);
    }
    const reason = body.state_reason;
    if (reason !== undefined && reason !== null && !['reopened', ...GITHUB_CLOSE_REASONS].includes(reason as string)) return githubInvalid('state_reason', 'invalid');
    if (body.state === 'closed' && reason === 'reopened') return githubInvalid('state_reason', 'invalid');
    const problem = githubTextProblem('title', body.title, 256) ?? githubTextProblem('body', body.body, 65_536) ?? githubLabelsProblem(body.labels);
    if (problem) return problem;
    if (typeof body.title === 'string') issue.title = body.title;
    if (body.body !== undefined) issue.body = body.body as string | null;
    if (body.labels !== undefined) issue.labels = applyLabels(repoOfIssue(issue), body.labels);
    issue.updated_at = now();
    // state_reason is only taken together with state.
    const action = body.state ? setState(issue, body.state as 'open' | 'closed', body.state === 'closed' ? ((reason ?? null) as GithubFakeCloseReason | null) : null) : null;
    if (action && apiWebhooks) void announce(action, issue, login);
    return { status: 200, body: githubIssueJson(issue, repoOfIssue(issue), base) };
  }

  const limitHeaders = (remaining: number, resetAt: number) => ({
    ...{ 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-used': String(5000 - remaining) },
    ...{ 'x-ratelimit-reset': String(resetAt), 'x-ratelimit-resource': 'core' },
  });

  async function route(req: RecordedRequest, base: string): Promise<FakeReply | undefined> {
    const url = new URL(req.url, 'http://fake');
    const path = url.pathname.replace(/^\/api\/v3(?=\/)/, '').replace(/\/+$/, '');
    const scheme = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!req.headers.authorization) return githubRefusal(401, 'Requires authentication');
    const caller = scheme ? tokens.get(scheme[1] as string) : undefined;
    if (!caller) return githubRefusal(401, 'Bad credentials');
    const resetAt = Math.ceil(Date.now() / 1000) + 3600;
    if (rateLimit?.kind === 'primary') {
      const headers = limitHeaders(0, Math.ceil(Date.now() / 1000) + rateLimit.resetInSeconds);
      return { ...githubRefusal(403, 'API rate limit exceeded for user ID 1.'), headers };
    }
    if (rateLimit?.kind === 'secondary') {
      return { ...githubRefusal(429, 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'), headers: { 'retry-after': String(rateLimit.retryAfterSeconds) } };
    }
    let body: Json = {};
    if (req.method === 'POST' || req.method === 'PATCH') {
      try {
        const parsed: unknown = JSON.parse(req.body || '{}');
        if (!isObject(parsed)) throw new Error('not an object');
        body = parsed;
      } catch {
        return githubRefusal(400, 'Problems parsing JSON');
      }
      if (caller.readOnly) return githubRefusal(403, 'Resource not accessible by personal access token');
    }
    if (req.method === 'GET' && path === '/search/issues') return githubSearch(repos, url.searchParams, Date.now() - searchLagMs, base);
    const [, owner, name, rest] = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path) ?? [];
    const repo = owner && name ? repoOf(owner, name) : undefined;
    if (!repo) return NOT_FOUND;
    const ok = (reply: FakeReply): FakeReply => ({ ...reply, headers: { ...limitHeaders(4999, resetAt), ...reply.headers } });
    if (rest === undefined) return req.method === 'GET' ? ok({ status: 200, body: githubRepoJson(repo, base, htmlBase) }) : NOT_FOUND;
    if (rest === '/issues' && req.method === 'GET') return ok(githubIssueList(repo, url.searchParams, base));
    if (rest === '/issues' && req.method === 'POST') return ok(await createIssue(repo, body, caller.login, base));
    const issue = repo.issues.find((i) => `/issues/${i.number}` === rest);
    if (!issue) return NOT_FOUND;
    if (req.method === 'GET') return ok({ status: 200, body: githubIssueJson(issue, repo, base) });
    if (req.method === 'PATCH') return ok(updateIssue(issue, body, caller.login, base));
    return NOT_FOUND;
  }

  const server = await startFakeServer((req) => route(req, apiBase(req)));
  const apiBase = (req: RecordedRequest) => (req.url.startsWith('/api/v3/') ? `${server.url}/api/v3` : server.url);

  const userAction = (owner: string, name: string, number: number, state: 'open' | 'closed', reason: GithubFakeCloseReason | null): Promise<number> => {
    const issue = repoOf(owner, name)?.issues.find((i) => i.number === number);
    if (!issue) throw new Error(`no issue ${owner}/${name}#${number}`);
    const action = setState(issue, state, reason);
    return action ? announce(action, issue, 'octocat') : Promise.resolve(0);
  };

  const closeServer = server.close.bind(server);
  return Object.assign(server, {
    async close() {
      held.releaseAll();
      await closeServer();
    },
    addToken(token = `ghp_${randomBytes(18).toString('base64url')}`, o: { login?: string; readOnly?: boolean } = {}) {
      tokens.set(token, { login: o.login ?? 'preflight-bot', readOnly: o.readOnly ?? false });
      return token;
    },
    revokeToken: (token: string) => void tokens.delete(token),
    createRepo(owner: string, name: string) {
      if (!repoOf(owner, name)) repos.set(`${owner}/${name}`.toLowerCase(), { id: nextId++, owner, name, labels: new Map(), issues: [] });
    },
    issues: (owner: string, name: string) => repoOf(owner, name)?.issues ?? [],
    waitForIssue: (match: (issue: GithubFakeIssue) => boolean, timeoutMs = 10_000) => created.waitFor(match, timeoutMs),
    registerHook: (url: string, secret: string, name?: string) => void hooks.push({ url, secret, ...(name ? { fullName: name } : {}) }),
    deliveries: deliveries.items,
    waitForDelivery: (match: (d: GithubFakeDelivery) => boolean, timeoutMs = 10_000) => deliveries.waitFor(match, timeoutMs),
    closeIssue: (owner: string, name: string, number: number, reason: GithubFakeCloseReason = 'completed') => userAction(owner, name, number, 'closed', reason),
    reopenIssue: (owner: string, name: string, number: number) => userAction(owner, name, number, 'open', null),
    setApiWebhooks: (on: boolean) => void (apiWebhooks = on),
    setRateLimit: (limit: GithubFakeRateLimit) => void (rateLimit = limit),
    setSearchLag: (ms: number) => void (searchLagMs = ms),
    holdNextCreate: () => held.arm(),
  });
}
