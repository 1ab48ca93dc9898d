import { z } from 'zod';
import { stateNameMapSchema, statusMapping, type StateNameMap, type StatusMapping } from '../status-map.ts';

/** A field's message: "Is required." when it is missing, else what it must be. */
const must = (text: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'Is required.' : text);

/** Jira project keys: an uppercase letter, then uppercase letters, digits or underscores. */
const PROJECT_KEY = /^[A-Z][A-Z0-9_]{0,254}$/;

function isBaseUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.search && !url.hash;
}

export const jiraConfigSchema = z.strictObject({
  baseUrl: z
    .string({ error: must('Must be the Jira site URL.') })
    .refine(isBaseUrl, 'Must be an absolute http(s) URL without credentials, query or fragment (https://your-site.atlassian.net).'),
  projectKey: z.string({ error: must('Must be a Jira project key.') }).regex(PROJECT_KEY, 'Must be a Jira project key such as PROJ (uppercase letters, digits, underscores).'),
  issueType: z.string({ error: 'Must be an issue type name.' }).trim().min(1, 'Must not be empty.').max(255, 'Must be at most 255 characters.').optional(),
  statusMap: stateNameMapSchema('Jira status').optional(),
}, { error: (issue) => (issue.code === 'unrecognized_keys' ? 'Must have no properties besides baseUrl, projectKey, issueType and statusMap.' : 'Must be an object with baseUrl and projectKey.') });

export const jiraCredentialsSchema = z.strictObject({
  email: z.email({ error: must('Must be the e-mail address of the Atlassian account.') }).max(254, 'Must be at most 254 characters.'),
  apiToken: z.string({ error: must('Must be an Atlassian API token.') }).min(1, 'Must not be empty.').max(1024, 'Must be at most 1024 characters.'),
}, { error: (issue) => (issue.code === 'unrecognized_keys' ? 'Must have no properties besides email and apiToken.' : 'Must be an object with email and apiToken.') });

export type JiraConfig = z.infer<typeof jiraConfigSchema>;
export type JiraCredentials = z.infer<typeof jiraCredentialsSchema>;

export const DEFAULT_ISSUE_TYPE = 'Task';

/** The statuses of Jira's default software workflow; a connection's statusMap adds to and overrides them. */
export const DEFAULT_JIRA_STATUS_MAP: StateNameMap = { 'To Do': 'Acknowledged', 'In Progress': 'InProgress', Done: 'Fixed', "Won't Do": 'WontFix' };

/** Later keys win, whatever their case, so "done" in the config replaces the default "Done". */
function merged(...maps: StateNameMap[]): StateNameMap {
  const out = new Map<string, [string, StateNameMap[string]]>();
  for (const map of maps) for (const [name, status] of Object.entries(map)) out.set(name.trim().toLowerCase(), [name, status]);
  return Object.fromEntries(out.values());
}

export const jiraStatusMapping = (config: JiraConfig): StatusMapping => statusMapping(merged(DEFAULT_JIRA_STATUS_MAP, config.statusMap ?? {}));

/** The site URL without a trailing slash. */
export const jiraBaseOf = (config: JiraConfig): string => config.baseUrl.replace(/\/+$/, '');

/** The label that marks the Jira issue made for a Preflight issue (labels cannot hold spaces or the marker's colon form). */
export const markerLabelOf = (issueId: string): string => `preflight-${issueId}`;
