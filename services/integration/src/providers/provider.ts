import type { INTEGRATION_CHAT_KINDS, INTEGRATION_KINDS, INTEGRATION_TRACKER_KINDS, IssueStatus } from '@preflight/contract';
import type { z } from 'zod';

/**
 * What every provider adapter (providers/<kind>/) offers the service. Adapters are the only
 * place that knows a provider's API: they call it through its official SDK, pointed at the
 * connection's base URL, over `SafeFetch` (outbound/safe-fetch.ts), and turn every failure into
 * a `ProviderError` the worker knows how to retry.
 */

export type ChatKind = (typeof INTEGRATION_CHAT_KINDS)[number];
export type TrackerKind = (typeof INTEGRATION_TRACKER_KINDS)[number];
export type ConnectionKind = (typeof INTEGRATION_KINDS)[number];

/** `fetch` with the webhook-target address rules: DNS checked and pinned, no redirects, a deadline. */
export type SafeFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** An issue as chat messages and tracker issues show it. */
export interface IssueCard {
  issueId: string;
  seqNumber: number;
  title: string;
  severity: string | null;
  type: string | null;
  status: IssueStatus;
  campaignId: string;
  campaignName: string | null;
  pageUrl: string | null;
  /** Who filed it: the tester's e-mail or the reporter's name. */
  reporter: string | null;
  /** The issue in the Preflight dashboard. */
  link: string;
  createdAt: string;
}

/** Everything an issue says, for the body of a tracker issue. */
export interface IssueDetail extends IssueCard {
  description: string | null;
  stepsToReproduce: string | null;
  expectedBehavior: string | null;
  actualBehavior: string | null;
  pageTitle: string | null;
  browserName: string | null;
  browserVersion: string | null;
  operatingSystem: string | null;
  deviceType: string | null;
  screenResolution: string | null;
  screenshotUrl: string | null;
}

/** One chat message: an issue's event as the channel sees it. */
export type ChatMessage =
  | { event: 'IssueCreated'; issue: IssueCard }
  | { event: 'IssueUpdated' | 'IssueClosed' | 'RetestRequested' | 'RetestCompleted'; issue: IssueCard; oldStatus: IssueStatus; reason: string | null }
  | { event: 'IssueAssigned'; issue: IssueCard; assigneeName: string | null }
  | { event: 'Other'; issue: IssueCard | null; text: string };

/** The tracker issue a Preflight issue is linked to. */
export interface ExternalIssue {
  /** Stable id the inbound hooks name it by (GitHub issue number as text, Jira issue id, Linear issue id). */
  externalId: string;
  /** What people call it: `owner/repo#12`, `PROJ-12`, `ENG-12`. */
  externalKey: string;
  url: string;
  /** The tracker state the issue is in after the call (echo detection compares inbound states with it). */
  state: string;
}

/** What a call answered, for the activity log. */
export interface CallResult {
  statusCode: number;
  detail?: string;
}

/**
 * The one way adapters fail.
 * - `credentials`: the provider refused the credentials (401, or 403 that is not a rate limit).
 *   The connection goes `needs-attention`; nothing is retried until they change.
 * - `rate-limited`: 429 (or GitHub's 403 with `x-ratelimit-remaining: 0`); retried after
 *   `retryAfterMs` (from `Retry-After` / the reset header), not counted as a failure.
 * - `unavailable`: no answer, a timeout, a connection error, 5xx: retried with backoff, counted
 *   by the connection's breaker.
 * - `rejected`: any other refusal (404 repository, 400/422 payload, a redirect, an address the
 *   rules refuse): not retried.
 */
export type ProviderErrorKind = 'credentials' | 'rate-limited' | 'unavailable' | 'rejected';

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly statusCode: number | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

export interface ChatClient {
  post(message: ChatMessage): Promise<CallResult>;
  /** A test message saying the connection works. */
  test(): Promise<CallResult>;
}

/**
 * A tracker state as the inbound hook reports it, before the workflow decides what it means:
 * GitHub's closed (completed / not planned) and reopened, or a Jira/Linear status already
 * mapped through the connection's statusMap/stateMap (`to` null when the map has no entry).
 */
export type InboundState =
  | { kind: 'closed-completed' }
  | { kind: 'closed-not-planned' }
  | { kind: 'reopened' }
  | { kind: 'mapped'; name: string; to: IssueStatus | null };

export interface InboundChange {
  externalId: string;
  externalKey: string;
  /** The tracker state after the change, comparable with `ExternalIssue.state`. */
  state: string;
  change: InboundState;
}

export interface TrackerClient {
  /** An authenticated read of the repository, project or team. */
  test(): Promise<CallResult>;
  /** The tracker issue made for `issueId` earlier (its marker), if any: makes create idempotent. */
  findByMarker(issueId: string): Promise<ExternalIssue | null>;
  /** Creates the tracker issue; its body carries `markerOf(issue.issueId)`. */
  create(issue: IssueDetail): Promise<ExternalIssue>;
  /** Moves the tracker issue to what `status` means there; null when it already is there (no call made). */
  syncStatus(link: ExternalIssue, status: IssueStatus, reason: string | null): Promise<ExternalIssue | null>;
}

/** Inbound hooks of one tracker kind; pure functions of the request. */
export interface InboundHooks<Config = Record<string, unknown>> {
  /** Whether the raw body is signed with `secret` in the provider's own way. */
  verify(headers: Record<string, string | string[] | undefined>, rawBody: Buffer, secret: string): boolean;
  /** The state change the hook reports; null for anything else (other events, other fields). */
  parse(headers: Record<string, string | string[] | undefined>, body: unknown, config: Config): InboundChange | null;
}

/** The text tracker issues carry so a retry finds the one already made. */
export const markerOf = (issueId: string): string => `preflight-issue:${issueId}`;

/** What each kind's folder exports as its module (providers/index.ts lists them). */
interface ProviderModuleBase<Config, Credentials> {
  /** Validates `config` (422 field messages come from it); unknown properties refused. */
  configSchema: z.ZodType<Config>;
  credentialsSchema: z.ZodType<Credentials>;
  /** Every URL the connection will call, for the address check when it is saved. */
  urls(config: Config, credentials: Credentials): string[];
}

export interface ChatProviderModule<Config = Record<string, unknown>, Credentials = Record<string, unknown>> extends ProviderModuleBase<Config, Credentials> {
  kind: ChatKind;
  client(config: Config, credentials: Credentials, fetch: SafeFetch): ChatClient;
}

export interface TrackerProviderModule<Config = Record<string, unknown>, Credentials = Record<string, unknown>> extends ProviderModuleBase<Config, Credentials> {
  kind: TrackerKind;
  client(config: Config, credentials: Credentials, fetch: SafeFetch): TrackerClient;
  hooks: InboundHooks<Config>;
}
