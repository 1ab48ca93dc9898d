import type { FakeReply } from './fake-server.ts';

/**
 * The shapes of GitHub's REST API the GitHub fake answers with: repository and issue JSON,
 * error bodies, payload checks, issue lists and issue search. Pure functions of the fake's state.
 */

export type GithubFakeCloseReason = 'completed' | 'not_planned' | 'duplicate';
export const GITHUB_CLOSE_REASONS: readonly string[] = ['completed', 'not_planned', 'duplicate'];

export interface GithubFakeIssue {
  id: number;
  number: number;
  owner: string;
  repo: string;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  state_reason: GithubFakeCloseReason | 'reopened' | null;
  labels: string[];
  html_url: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  /** Who created it (the token's login). */
  creator: string;
}

export interface GithubFakeRepo {
  id: number;
  owner: string;
  name: string;
  /** By lower-case name: GitHub's label names are case-insensitive. */
  labels: Map<string, { id: number; name: string }>;
  issues: GithubFakeIssue[];
}

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const githubRefusal = (status: number, message: string, extra: Json = {}): FakeReply => ({
  status,
  body: { message, ...extra, documentation_url: 'https://docs.github.com/rest', status: String(status) },
});
export const githubInvalid = (field: string, code: string, message?: string, resource = 'Issue'): FakeReply =>
  githubRefusal(422, 'Validation Failed', { errors: [{ resource, code, field, ...(message ? { message } : {}) }] });
/** What GitHub's request schema check says about a property of the wrong kind. */
export const githubSchemaRefusal = (text: string): FakeReply => githubRefusal(422, `Invalid request.\n\n${text}`);

export const fullNameOf = (repo: GithubFakeRepo) => `${repo.owner}/${repo.name}`;

export const githubRepoJson = (repo: GithubFakeRepo, base: string, htmlBase: string) => ({
  id: repo.id,
  node_id: `R_${repo.id}`,
  name: repo.name,
  full_name: fullNameOf(repo),
  owner: { login: repo.owner, id: repo.id + 1, type: 'Organization' },
  private: true,
  html_url: `${htmlBase}/${fullNameOf(repo)}`,
  url: `${base}/repos/${fullNameOf(repo)}`,
  has_issues: true,
  open_issues_count: repo.issues.filter((i) => i.state === 'open').length,
});

export function githubIssueJson(issue: GithubFakeIssue, repo: GithubFakeRepo, base: string) {
  const url = `${base}/repos/${fullNameOf(repo)}/issues/${issue.number}`;
  const label = (name: string) => ({ id: repo.labels.get(name.toLowerCase())?.id ?? 0, name, color: 'ededed', default: false, description: null });
  return {
    ...{ id: issue.id, node_id: `I_${issue.id}`, url, repository_url: `${base}/repos/${fullNameOf(repo)}` },
    ...{ labels_url: `${url}/labels{/name}`, comments_url: `${url}/comments`, events_url: `${url}/events`, html_url: issue.html_url },
    ...{ number: issue.number, state: issue.state, state_reason: issue.state_reason, title: issue.title, body: issue.body },
    user: { login: issue.creator, id: 1, type: 'User' },
    labels: issue.labels.map(label),
    ...{ assignee: null, assignees: [], milestone: null, locked: false, comments: 0, author_association: 'OWNER' },
    ...{ created_at: issue.created_at, updated_at: issue.updated_at, closed_at: issue.closed_at },
  };
}

/** The refusal for a bad `labels` property (names or `{name}` objects, each 1–50 characters), or null. */
export function githubLabelsProblem(labels: unknown): FakeReply | null {
  if (labels === undefined) return null;
  const names = Array.isArray(labels) ? labels.map((l) => (isObject(l) ? l.name : l)) : null;
  if (!names || names.some((n) => typeof n !== 'string')) return githubSchemaRefusal(`For 'properties/labels', ${JSON.stringify(labels)} is not an array of strings.`);
  const bad = (names as string[]).find((n) => n.trim().length < 1 || n.length > 50);
  return bad === undefined ? null : githubInvalid('name', 'invalid', `Label name ${JSON.stringify(bad)} is invalid`, 'Label');
}

/** The refusal for a bad title (required text, 256 at most) or body (65536 at most), or null. */
export function githubTextProblem(field: 'title' | 'body', value: unknown, max: number): FakeReply | null {
  if (value === undefined || (field === 'body' && value === null)) return null;
  if (typeof value !== 'string') return githubSchemaRefusal(`For 'properties/${field}', ${JSON.stringify(value)} is not a string.`);
  if (field === 'title' && !value.trim()) return githubInvalid('title', 'missing_field');
  return value.length > max ? githubInvalid(field, 'custom', `${field} is too long (maximum is ${max} characters)`) : null;
}

const pageSize = (query: URLSearchParams) => Math.min(Math.max(Number(query.get('per_page') ?? 30) || 30, 1), 100);

/** GET /repos/{o}/{r}/issues: `state` (open by default), `direction` of creation, `per_page`, `page`. */
export function githubIssueList(repo: GithubFakeRepo, query: URLSearchParams, base: string): FakeReply {
  const state = query.get('state') ?? 'open';
  const perPage = pageSize(query);
  const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
  const ordered = [...repo.issues].sort((a, b) => a.id - b.id);
  if ((query.get('direction') ?? 'desc') === 'desc') ordered.reverse();
  const matching = ordered.filter((i) => state === 'all' || i.state === state);
  return { status: 200, body: matching.slice((page - 1) * perPage, page * perPage).map((i) => githubIssueJson(i, repo, base)) };
}

/**
 * GET /search/issues, the `"phrase" word repo:o/r in:body is:issue state:open` subset of
 * GitHub's syntax. Only issues created before `indexedBefore` are in the index.
 */
export function githubSearch(repos: Map<string, GithubFakeRepo>, query: URLSearchParams, indexedBefore: number, base: string): FakeReply {
  const q = query.get('q');
  if (!q?.trim()) return githubInvalid('q', 'missing', undefined, 'Search');
  const phrases = [...q.matchAll(/"([^"]*)"/g)].map((m) => (m[1] as string).toLowerCase());
  const words = q.replace(/"[^"]*"/g, ' ').split(/\s+/).filter(Boolean);
  const qualifier = (name: string) => words.filter((w) => w.toLowerCase().startsWith(`${name}:`)).map((w) => w.slice(name.length + 1));
  const terms = words.filter((w) => !w.includes(':')).map((w) => w.toLowerCase());
  const repoNames = qualifier('repo');
  if (repoNames.some((name) => !repos.has(name.toLowerCase()))) {
    const message = 'The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.';
    return githubInvalid('q', 'invalid', message, 'Search');
  }
  const within = qualifier('in').flatMap((v) => v.split(','));
  const states = [...qualifier('state'), ...qualifier('is').filter((v) => v === 'open' || v === 'closed')];
  const searched = repoNames.length ? repoNames.map((n) => repos.get(n.toLowerCase()) as GithubFakeRepo) : [...repos.values()];
  const hits = searched.flatMap((repo) =>
    repo.issues
      .filter((issue) => Date.parse(issue.created_at) <= indexedBefore && (!states.length || states.includes(issue.state)))
      .filter((issue) => {
        const inTitle = within.length === 0 || within.includes('title');
        const inBody = within.length === 0 || within.includes('body');
        const text = `${inTitle ? issue.title : ''}\n${inBody ? (issue.body ?? '') : ''}`.toLowerCase();
        return [...phrases, ...terms].every((t) => text.includes(t));
      })
      .map((issue) => ({ ...githubIssueJson(issue, repo, base), score: 1 })),
  );
  return { status: 200, body: { total_count: hits.length, incomplete_results: false, items: hits.slice(0, pageSize(query)) } };
}
