import type { IssueStatus } from '@preflight/contract';
import { HttpException, Version3Client } from 'jira.js';
import { providerErrorIn } from '../../outbound/safe-fetch.ts';
import { ProviderError, type ExternalIssue, type IssueDetail, type SafeFetch, type TrackerClient } from '../provider.ts';
import { refusal, type HeaderSource } from '../refusals.ts';
import { trackerTitle } from '../tracker-text.ts';
import { issueDescriptionAdf } from './adf.ts';
import { DEFAULT_ISSUE_TYPE, jiraBaseOf, jiraStatusMapping, markerLabelOf, type JiraConfig, type JiraCredentials } from './schema.ts';

/** Jira's summary holds at most 255 characters. */
const SUMMARY_MAX = 255;

const PRIORITY_OF_SEVERITY: Record<string, string> = { Critical: 'Highest', High: 'High', Medium: 'Medium', Low: 'Low', Trivial: 'Lowest' };

interface JiraStatus {
  name: string;
  statusCategory?: { key?: string };
}
interface JiraIssueStatus {
  id: string;
  key: string;
  fields: { status: JiraStatus };
}
interface JiraTransition {
  id: string;
  name: string;
  to: JiraStatus;
}

/**
 * axios (under jira.js) caches one fetch adapter per `env.fetch` function for good, so every
 * client shares this one and hands it its own SafeFetch in `fetchOptions`. `Request: null` makes
 * axios call fetch with a URL and an init, as SafeFetch expects, rather than a Request object.
 */
type SafeFetchInit = RequestInit & { safeFetch?: SafeFetch };
const viaSafeFetch = async (input: string | URL, init?: SafeFetchInit): Promise<Response> => {
  const { safeFetch, ...rest } = init ?? {};
  if (!safeFetch) throw new ProviderError('rejected', 'Jira call without an outbound fetch');
  return safeFetch(input, rest);
};

function jiraClient(config: JiraConfig, credentials: JiraCredentials, fetch: SafeFetch): Version3Client {
  return new Version3Client({
    host: jiraBaseOf(config),
    authentication: { basic: { email: credentials.email, apiToken: credentials.apiToken } },
    baseRequestConfig: {
      adapter: 'fetch',
      env: { fetch: viaSafeFetch, Request: null },
      fetchOptions: { safeFetch: fetch },
      // SafeFetch owns the deadline and never follows redirects; a 3xx comes back as a refusal.
      maxRedirects: 0,
      timeout: 0,
    },
  });
}

/** What Jira said was wrong (`errorMessages`, `errors` by field), short; never the request. */
function jiraComplaint(data: unknown): string {
  if (!data || typeof data !== 'object') return '';
  const { errorMessages, errors } = data as { errorMessages?: unknown; errors?: unknown };
  const parts = [
    ...(Array.isArray(errorMessages) ? errorMessages.map(String) : []),
    ...(errors && typeof errors === 'object' ? Object.entries(errors).map(([field, msg]) => `${field}: ${String(msg)}`) : []),
  ];
  return parts.join('; ').slice(0, 500);
}

/** Every failure of a jira.js call as a ProviderError (refusals.ts decides the kind). */
export function jiraFailure(err: unknown, what: string): ProviderError {
  const inner = providerErrorIn(err);
  if (inner) return inner;
  if (err instanceof HttpException) {
    const headers = (err.cause as { response?: { headers?: HeaderSource } } | undefined)?.response?.headers;
    const refused = refusal(err.status, headers, what);
    const complaint = err.status < 500 && err.status !== 401 ? jiraComplaint(err.response && typeof err.response === 'object' ? (err.response as { data?: unknown }).data : undefined) : '';
    return complaint ? new ProviderError(refused.kind, `${refused.message}: ${complaint}`, refused.statusCode, refused.retryAfterMs) : refused;
  }
  return new ProviderError('unavailable', `${what}: ${(err as Error).message ?? 'request failed'}`);
}

async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw jiraFailure(err, what);
  }
}

/** JQL string literal: quotes and backslashes escaped. */
const jqlString = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

export function createJiraTrackerClient(config: JiraConfig, credentials: JiraCredentials, fetch: SafeFetch): TrackerClient {
  const jira = jiraClient(config, credentials, fetch);
  const base = jiraBaseOf(config);
  const mapping = jiraStatusMapping(config);
  const external = (issue: { id: string; key: string }, state: string): ExternalIssue => ({ externalId: issue.id, externalKey: issue.key, url: `${base}/browse/${issue.key}`, state });
  const issueStatus = (issueIdOrKey: string) =>
    call('Jira issue status', () => jira.issues.getIssue<JiraIssueStatus>({ issueIdOrKey, fields: ['status'] }));

  return {
    async test() {
      const project = await call('Jira project', () => jira.projects.getProject<{ key: string; name: string }>({ projectIdOrKey: config.projectKey }));
      return { statusCode: 200, detail: `Project ${project.key} (${project.name}) is readable.` };
    },

    async findByMarker(issueId) {
      const jql = `project = ${jqlString(config.projectKey)} AND labels = ${jqlString(markerLabelOf(issueId))}`;
      const found = await call('Jira issue search', () =>
        jira.issueSearch.searchForIssuesUsingJqlEnhancedSearchPost<{ issues?: JiraIssueStatus[] }>({ jql, fields: ['status'], maxResults: 1 }),
      );
      const issue = found.issues?.[0];
      return issue ? external(issue, issue.fields.status.name) : null;
    },

    async create(issue: IssueDetail) {
      const priority = issue.severity ? PRIORITY_OF_SEVERITY[issue.severity] : undefined;
      const created = await call('Jira issue create', () =>
        jira.issues.createIssue<{ id: string; key: string }>({
          fields: {
            project: { key: config.projectKey },
            issuetype: { name: config.issueType ?? DEFAULT_ISSUE_TYPE },
            summary: trackerTitle(issue, SUMMARY_MAX),
            description: issueDescriptionAdf(issue),
            labels: ['preflight', markerLabelOf(issue.issueId)],
            ...(priority ? { priority: { name: priority } } : {}),
          },
        }),
      );
      // The status a new issue starts in depends on the project's workflow, so it is read back.
      const now = await issueStatus(created.id);
      return external(created, now.fields.status.name);
    },

    async syncStatus(link, status: IssueStatus) {
      const now = await issueStatus(link.externalId);
      const current = now.fields.status;
      if (mapping.statusOf(current) === status) return null;
      const { transitions = [] } = await call('Jira transitions', () => jira.issues.getTransitions<{ transitions?: JiraTransition[] }>({ issueIdOrKey: link.externalId }));
      const target = mapping.pick(status, current, transitions.map((t) => t.to));
      // Another status of the same group with no exact match elsewhere: the issue stays where it is.
      if (target === current) return null;
      const transition = target && transitions.find((t) => t.to === target);
      if (!transition) {
        throw new ProviderError('rejected', `Jira issue ${now.key} is in "${current.name}" and has no transition to a status meaning ${status} (see the connection's statusMap)`);
      }
      await call('Jira transition', () => jira.issues.doTransition({ issueIdOrKey: link.externalId, transition: { id: transition.id } }));
      return external(now, transition.to.name);
    },
  };
}
