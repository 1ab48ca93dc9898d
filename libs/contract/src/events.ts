import { z } from 'zod';

/**
 * Outbound events (public-api-v1.md section 6): the names, the data fields of each emitted
 * event, and the delivery envelope that every delivery and every sample
 * (GET /api/v1/events/{eventKey}/sample) carries.
 */

/** Events that fire today, in the order of spec 6.2; GET /api/v1/events lists these. */
export const EMITTED_EVENT_TYPES = [
  'CampaignLaunched',
  'CampaignClosed',
  'ReportSealed',
  'TesterCompleted',
  'IssueCreated',
  'IssueUpdated',
  'IssueClosed',
  'RetestRequested',
  'RetestCompleted',
] as const;

/** Selectable in an endpoint's filter but never emitted (spec 6.3). */
export const RESERVED_EVENT_TYPES = [
  'CampaignCreated',
  'TesterInvited',
  'TesterStarted',
  'TesterApproved',
  'TesterRejected',
  'FeedbackSubmitted',
] as const;

export type EmittedEventType = (typeof EMITTED_EVENT_TYPES)[number];
export type ReservedEventType = (typeof RESERVED_EVENT_TYPES)[number];

const STATUS_CHANGE = ['issueId', 'campaignId', 'title', 'oldStatus', 'newStatus', 'reason'] as const;

/** The `data` fields of each emitted event (spec 6.2), camelCase. */
export const EVENT_DATA_FIELDS = {
  CampaignLaunched: ['campaignId', 'name', 'status'],
  CampaignClosed: ['campaignId', 'name', 'status'],
  ReportSealed: [
    'campaignId',
    'name',
    'siteId',
    'siteName',
    'sealState',
    'signedCount',
    'waivedCount',
    'requiredCount',
    'gate',
    'readinessLevel',
    'sealedVersion',
    'signedBy',
    'decision',
  ],
  TesterCompleted: ['campaignId', 'campaignName', 'campaignTesterId', 'testerName', 'verdict', 'issuesReported'],
  IssueCreated: ['issueId', 'campaignId', 'title', 'severity', 'type', 'status', 'pageUrl'],
  IssueUpdated: STATUS_CHANGE,
  IssueClosed: STATUS_CHANGE,
  RetestRequested: STATUS_CHANGE,
  RetestCompleted: STATUS_CHANGE,
} as const satisfies Record<EmittedEventType, readonly string[]>;

/** The body of every delivery (spec 6.1). `id` is identical across retries of one event. */
export const EventEnvelopeSchema = z.object({
  id: z.uuid(),
  eventType: z.string(),
  occurredAt: z.iso.datetime({ offset: true }),
  data: z.record(z.string(), z.unknown()),
});

export type EventEnvelope = z.infer<typeof EventEnvelopeSchema>;
