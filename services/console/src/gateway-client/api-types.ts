import type { ResponseOf, SendOf } from '@preflight/contract';
import type { MemberRole } from '@preflight/contract';

/**
 * The admin API's requests and answers as the console's pages use them (admin-api-v1.md), named
 * from the route manifest (libs/contract): each is the entry's response (`ResponseOf`) or the
 * body a client may send it (`SendOf`).
 */

export type { SendOf } from '@preflight/contract';

export type { PublicCampaign, PublicIssue, PublicIssueSummary, IssuePage } from '@preflight/contract';

export type { MemberRole };

export type Site = ResponseOf<'adminListSites'>[number];
export type Signer = ResponseOf<'adminListSigners'>[number];
/** A stamp or a waiver: the answer to either, and each entry of the report. */
export type ReportEntry = ResponseOf<'adminAddStamp'>;
export type ReadinessReport = ResponseOf<'adminGetReport'>;
export type Task = ResponseOf<'adminListTasks'>[number];
export type Tester = ResponseOf<'adminCreateTester'>;
/** A tester with the tasks it has completed: a completion's answer, and each entry of the testers' list. */
export type TesterProgress = ResponseOf<'adminListTesters'>[number];

export type AdminIssue = ResponseOf<'adminGetIssue'>;
/** The admin create's body: every writable field of the issue detail. */
export type IssueFields = SendOf<'adminCreateIssue'>;
export type CreatedIssue = ResponseOf<'adminCreateIssue'>;
export type StatusChange = SendOf<'adminChangeIssueStatus'>;
export type IssueLink = ResponseOf<'adminListIssueLinks'>[number];

export type ApiKey = ResponseOf<'adminListApiKeys'>[number];
export type CreatedApiKey = ResponseOf<'adminCreateApiKey'>;
export type NewApiKey = SendOf<'adminCreateApiKey'>;

/** A webhook as the settings list shows it, with the delivery service's numbers. */
export type AdminWebhook = ResponseOf<'adminListWebhooks'>[number];
export type CreatedWebhook = ResponseOf<'adminCreateWebhook'>;
/** One attempt of the delivery log. */
export type DeliveryAttempt = ResponseOf<'adminListDeliveries'>[number];
export type QueuedDelivery = ResponseOf<'adminRedeliver'>;
export type RotatedSecret = ResponseOf<'adminRotateWebhookSecret'>;

export type Integration = ResponseOf<'adminListIntegrations'>[number];
/** The answer of a connection's creation: a tracker's inbound secret is in it, this once. */
export type CreatedIntegration = ResponseOf<'adminCreateIntegration'>;
export type IntegrationKind = Integration['kind'];
export type IntegrationSettings = SendOf<'adminCreateIntegration'>;
export type IntegrationUpdate = SendOf<'adminUpdateIntegration'>;
export type IntegrationTestResult = ResponseOf<'adminTestIntegration'>;
export type IntegrationActivity = ResponseOf<'adminListIntegrationActivity'>[number];

/** The console's own members API (owner `console`, docs/console.md). */
export type Member = ResponseOf<'adminListMembers'>[number];
export type Invitation = ResponseOf<'adminListInvitations'>[number];
/** The answer of an invitation's creation: `url` carries the one-time token and is shown only here. */
export type CreatedInvitation = ResponseOf<'adminCreateInvitation'>;
export type NewInvitation = SendOf<'adminCreateInvitation'>;
