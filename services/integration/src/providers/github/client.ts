import { Octokit } from '@octokit/rest';
import type { IssueStatus } from '@preflight/contract';
import { providerErrorIn } from '../../outbound/safe-fetch.ts';
import { markerOf, ProviderError, type ExternalIssue, type IssueDetail, type SafeFetch, type TrackerClient } from '../provider.ts';
import { refusal } from '../refusals.ts';
import { carriesMarker, trackerMarkdown, trackerTitle } from '../tracker-text.ts';
import { apiBaseOf, repoNameOf, type GithubConfig, type GithubCredentials } from './schema.ts';
import { isAt, stateOf, targetOf, type GithubIssueState } from './state.ts';

/** GitHub's limits on an issue's title and body. */
const MAX_TITLE = 256;
const MAX_BODY = 65_536;
/** How many of the newest issues findByMarker reads before it asks the (lagging) search index. */
const RECENT_ISSUES = 30;

interface GithubIssue extends GithubIssueState {
  number: number;
  html_url: string;
  body?: string | null;
  pull_request?: unknown;
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Octokit over SafeFetch. Octokit treats a 3xx as success; SafeFetch never follows redirects,
 * so one is refused here. @octokit/rest carries no retry or throttling plugin: the worker
 * retries, by the ProviderError kinds.
 */
function octokitFor(config: GithubConfig, credentials: GithubCredentials, safeFetch: SafeFetch): Octokit {
  const fetch: SafeFetch = async (input, init) => {
    const response = await safeFetch(input, init);
    if (response.status >= 300 && response.status < 400) throw refusal(response.status, response.headers, 'GitHub');
    return response;
  };
  return new Octokit({ baseUrl: apiBaseOf(config), auth: credentials.token, userAgent: 'preflight-integration', log: quiet, request: { fetch, retries: 0 } });
}

/** GitHub's own message from an error body (`message` and validation `errors`), on one line. */
function githubMessage(data: unknown): string {
  if (typeof data !== 'object' || data === null) return typeof data === 'string' ? data.slice(0, 200) : '';
  const { message, errors } = data as { message?: unknown; errors?: unknown };
  const details = Array.isArray(errors) ? errors.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join(', ') : '';
  return [typeof message === 'string' ? message : '', details].filter(Boolean).join(': ').replace(/\s+/g, ' ').slice(0, 300);
}

/** Every failure as a ProviderError: SafeFetch's own (wrapped by Octokit), or a refusal by status. */
function failure(err: unknown, what: string): ProviderError {
  const inner = providerErrorIn(err);
  if (inner) return inner;
  // Octokit's RequestError: the status and the response GitHub gave.
  const { status, response } = err as { status?: unknown; response?: { headers?: Record<string, string>; data?: unknown } };
  if (typeof status === 'number' && response) {
    const base = refusal(status, response.headers, what);
    const said = githubMessage(response.data);
    return new ProviderError(base.kind, said ? `${base.message}: ${said}` : base.message, base.statusCode, base.retryAfterMs);
  }
  return new ProviderError('unavailable', `${what}: ${(err as Error).message}`);
}

function issueOf(data: unknown, what: string): GithubIssue {
  const issue = data as Partial<GithubIssue> | null;
  if (typeof issue?.number !== 'number' || typeof issue.html_url !== 'string' || typeof issue.state !== 'string') {
    throw new ProviderError('unavailable', `${what}: GitHub answered without an issue`);
  }
  return issue as GithubIssue;
}

export function githubClient(config: GithubConfig, credentials: GithubCredentials, safeFetch: SafeFetch): TrackerClient {
  const octokit = octokitFor(config, credentials, safeFetch);
  const { owner, repo } = config;
  const repoName = repoNameOf(config);
  const linkOf = (issue: GithubIssue): ExternalIssue => ({
    externalId: String(issue.number),
    externalKey: `${repoName}#${issue.number}`,
    url: issue.html_url,
    state: stateOf(issue),
  });
  const call = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw failure(err, what);
    }
  };

  const recentWithMarker = async (issueId: string): Promise<GithubIssue | undefined> => {
    const what = `GitHub: list issues of ${repoName}`;
    const { data } = await call(what, () => octokit.rest.issues.listForRepo({ owner, repo, state: 'all', sort: 'created', direction: 'desc', per_page: RECENT_ISSUES }));
    return data.find((issue) => !issue.pull_request && carriesMarker(issue.body, issueId));
  };

  const searchedWithMarker = async (issueId: string): Promise<GithubIssue | undefined> => {
    const what = `GitHub: search issues of ${repoName}`;
    const q = `"${markerOf(issueId)}" repo:${repoName} in:body is:issue`;
    const { data } = await call(what, () => octokit.rest.search.issuesAndPullRequests({ q, per_page: 10 }));
    // Search matches words, not the exact text: the hit must carry the marker itself.
    return data.items.find((issue) => !issue.pull_request && carriesMarker(issue.body, issueId));
  };

  return {
    async test() {
      const what = `GitHub: read ${repoName}`;
      const { status } = await call(what, () => octokit.rest.repos.get({ owner, repo }));
      return { statusCode: status, detail: `${repoName} is reachable` };
    },

    // The newest issues first: GitHub's search index lags a freshly made issue by seconds to minutes.
    async findByMarker(issueId) {
      const found = (await recentWithMarker(issueId)) ?? (await searchedWithMarker(issueId));
      return found ? linkOf(issueOf(found, `GitHub: find issue in ${repoName}`)) : null;
    },

    async create(issue: IssueDetail) {
      const what = `GitHub: create issue in ${repoName}`;
      const labels = [...new Set([...(config.labels ?? []), ...(issue.severity ? [`severity: ${issue.severity}`] : []), ...(issue.type ? [`type: ${issue.type}`] : [])])];
      const { data } = await call(what, () =>
        octokit.rest.issues.create({ owner, repo, title: trackerTitle(issue, MAX_TITLE), body: trackerMarkdown(issue, MAX_BODY), labels }),
      );
      return linkOf(issueOf(data, what));
    },

    async syncStatus(link: ExternalIssue, status: IssueStatus) {
      const issueNumber = Number(link.externalId);
      if (!Number.isSafeInteger(issueNumber) || issueNumber <= 0) throw new ProviderError('rejected', `GitHub: '${link.externalId}' is not an issue number`);
      const what = `GitHub: update ${repoName}#${issueNumber}`;
      const target = targetOf(status);
      const current = await call(what, () => octokit.rest.issues.get({ owner, repo, issue_number: issueNumber }));
      if (isAt(issueOf(current.data, what), target)) return null;
      // state_reason is only taken together with state, so both are always sent.
      const body = target.state === 'open' ? { state: 'open' as const, state_reason: 'reopened' as const } : target;
      const { data } = await call(what, () => octokit.rest.issues.update({ owner, repo, issue_number: issueNumber, ...body }));
      return linkOf(issueOf(data, what));
    },
  };
}
