import { createHash } from 'node:crypto';
import type { IssueStatus } from '@preflight/contract';
import { z } from 'zod';
import { stateNameMapSchema, statusMapping, type StatusMapping } from '../status-map.ts';

export const LINEAR_API_URL = 'https://api.linear.app/graphql';

/** A field's message: "Is required." when it is missing, else what it must be. */
const must = (text: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'Is required.' : text);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isApiUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.hash;
}

export const linearConfigSchema = z.strictObject({
  teamId: z.string({ error: must("Must be the Linear team's id.") }).regex(UUID, "Must be the Linear team's id (a UUID; Linear shows it with “Copy model UUID”)."),
  apiUrl: z.string({ error: 'Must be an absolute http(s) URL.' }).refine(isApiUrl, 'Must be an absolute http(s) URL without credentials or fragment (https://api.linear.app/graphql).').optional(),
  stateMap: stateNameMapSchema('Linear workflow state').optional(),
}, { error: (issue) => (issue.code === 'unrecognized_keys' ? 'Must have no properties besides teamId, apiUrl and stateMap.' : 'Must be an object with teamId.') });

export const linearCredentialsSchema = z.strictObject({
  apiKey: z
    .string({ error: must('Must be a Linear API key.') })
    .min(1, 'Must not be empty.')
    .max(255, 'Must be at most 255 characters.')
    .regex(/^[\x21-\x7e]+$/, 'Must be a Linear API key (no spaces or special characters).'),
  // Linear makes up the signing secret of a webhook created on its settings page; pasted here, inbound hooks are checked with it instead of the connection's own.
  webhookSecret: z.string({ error: 'Must be the signing secret Linear shows for the webhook.' }).min(1, 'Must not be empty.').max(255, 'Must be at most 255 characters.').optional(),
}, { error: (issue) => (issue.code === 'unrecognized_keys' ? 'Must have no properties besides apiKey and webhookSecret.' : 'Must be an object with apiKey.') });

export type LinearConfig = z.infer<typeof linearConfigSchema>;
export type LinearCredentials = z.infer<typeof linearCredentialsSchema>;

export const linearApiUrlOf = (config: LinearConfig): string => config.apiUrl ?? LINEAR_API_URL;

/** What a workflow state means when the stateMap does not name it, by Linear's state type. */
export const STATUS_BY_STATE_TYPE: Readonly<Record<string, IssueStatus>> = {
  triage: 'New',
  backlog: 'Acknowledged',
  unstarted: 'Acknowledged',
  started: 'InProgress',
  completed: 'Fixed',
  canceled: 'WontFix',
};

export const linearStatusMapping = (config: LinearConfig): StatusMapping => statusMapping(config.stateMap ?? {}, STATUS_BY_STATE_TYPE);

/**
 * The Linear issue id for a Preflight issue: Linear takes a client-chosen UUID v4 on create, so
 * the id is derived from the Preflight id (sha-256, version and variant bits set) and a second
 * create of the same issue is refused by Linear instead of making a twin.
 */
export function linearIssueIdOf(issueId: string): string {
  const bytes = createHash('sha256').update(`preflight:${issueId}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
