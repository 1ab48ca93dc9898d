import type { CreateWebhookResponse, EndpointStats, IssueSeverity, IssueStatus, PublicIssue, PublicWebhook, RequestOf, ResponseOf } from '@preflight/contract';
import type { MemberRole } from '@preflight/http';

/**
 * The admin API's requests and answers as the console's pages use them (admin-api-v1.md): named
 * from the route manifest (libs/contract `ResponseOf` / `RequestOf`) where it declares them, by
 * hand where it does not yet.
 */

export type { PublicCampaign, PublicIssue, PublicIssueSummary, IssuePage, PublicWebhook, CreateWebhookResponse, EndpointStats } from '@preflight/contract';

export type { MemberRole };

export interface Site {
  id: string;
  name: string;
  url: string | null;
  createdAt: string;
}

export interface Signer {
  id: string;
  name: string;
  email: string;
  createdAt: string;
}

export interface ReportEntry {
  signerId: string;
  version: number;
  kind: 'stamp' | 'waiver';
  decision: 'approve' | 'reject' | null;
  note: string | null;
  at: string;
}

export interface ReadinessReport {
  version: number;
  readinessLevel: string | null;
  gate: string | null;
  sealState: string;
  sealedVersion: number | null;
  requiredCount: number;
  signedCount: number;
  waivedCount: number;
  entries: ReportEntry[];
}

export interface Task {
  id: string;
  title: string;
  required: boolean;
}

export interface Tester {
  id: string;
  name: string;
  email: string;
  preview: boolean;
  status: string;
}

/** A tester with the tasks it has completed: a completion's answer, and each entry of the testers' list. */
export interface TesterProgress extends Tester {
  verdict: string | null;
  completedAt: string | null;
  completedTasks: Array<{ id: string; title: string; required: boolean; verdict: string | null; completedAt: string }>;
}

export type AdminIssue = PublicIssue & { reporter: string };

/** The admin create's body: every writable field of the issue detail. */
export interface IssueFields {
  title: string;
  severity: string;
  type: string;
  description?: string | null;
  stepsToReproduce?: string | null;
  expectedBehavior?: string | null;
  actualBehavior?: string | null;
  pageUrl?: string | null;
  pageTitle?: string | null;
  browserName?: string | null;
  browserVersion?: string | null;
  operatingSystem?: string | null;
  deviceType?: string | null;
  screenResolution?: string | null;
  screenshotUrl?: string | null;
  testerEmail?: string | null;
}

export interface IssueLink {
  integrationId: string;
  kind: string;
  externalKey: string;
  url: string | null;
  syncedAt: string | null;
}

export type ApiKey = ResponseOf<'adminListApiKeys'>[number];
export type CreatedApiKey = ResponseOf<'adminCreateApiKey'>;
export type NewApiKey = RequestOf<'adminCreateApiKey'>;

export type AdminWebhook = PublicWebhook & { consecutiveFailures: number; disabledAt: string | null; stats: EndpointStats | null };
export type CreatedWebhook = CreateWebhookResponse;

/** One attempt of the delivery log. */
export interface DeliveryAttempt {
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number | null;
  responseBody: string | null;
  error: string | null;
  outcome: string;
  trigger: 'event' | 'redeliver' | 'recover' | 'test' | string;
}

export interface QueuedDelivery {
  eventId: string;
  deliveryId: string;
}

export interface RotatedSecret {
  secret: string;
  previousSecretExpiresAt: string;
}

export type IntegrationKind = 'slack' | 'teams' | 'github' | 'jira' | 'linear';

export interface Integration {
  id: string;
  kind: IntegrationKind;
  name: string;
  config: Record<string, unknown>;
  campaignIds: string[] | null;
  events: string[];
  minSeverity: IssueSeverity | null;
  paused: boolean;
  status: 'active' | 'failing' | 'needs-attention';
  lastError: string | null;
  lastSuccessAt: string | null;
  createdAt: string;
  inbound?: { url: string; secret?: string };
}

export interface IntegrationSettings {
  kind: IntegrationKind;
  name: string;
  config: Record<string, unknown>;
  credentials: Record<string, unknown>;
  campaignIds?: string[] | null;
  events?: string[];
  minSeverity?: string | null;
}

export interface IntegrationTestResult {
  ok: boolean;
  statusCode: number | null;
  detail: string;
}

export interface IntegrationActivity {
  at: string;
  direction: 'out' | 'in';
  issueId: string | null;
  action: string;
  outcome: string;
  statusCode: number | null;
  error: string | null;
  externalKey: string | null;
}

/** The console's own members API (owner `console`, docs/console.md). */
export type Member = ResponseOf<'adminListMembers'>[number];
export type Invitation = ResponseOf<'adminListInvitations'>[number];
/** The answer of an invitation's creation: `url` carries the one-time token and is shown only here. */
export type CreatedInvitation = ResponseOf<'adminCreateInvitation'>;
export type NewInvitation = RequestOf<'adminCreateInvitation'>;

export interface StatusChange {
  to: IssueStatus;
  reason?: string | null;
  duplicateOfId?: string | null;
}
