import { fromTimestamp, createEvent, toTimestamp, type DomainEvent, type DomainEventKind, type DomainEventMessage } from './catalogue.ts';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { EMITTED_EVENT_TYPES, ISSUE_STATUSES, RESERVED_EVENT_TYPES, type IssueStatus } from '@preflight/contract';

/**
 * The public event names are part of the public contract (libs/contract/src/events.ts); this
 * library maps domain events onto them.
 */

export type PublicEventName = (typeof EMITTED_EVENT_TYPES)[number];
export type ReservedEventName = (typeof RESERVED_EVENT_TYPES)[number];
/** Every name an endpoint's event filter may hold. */
export type SelectableEventName = PublicEventName | ReservedEventName;

export const isPublicEvent = (name: string): name is PublicEventName => (EMITTED_EVENT_TYPES as readonly string[]).includes(name);
export const isSelectableEvent = (name: string): name is SelectableEventName =>
  isPublicEvent(name) || (RESERVED_EVENT_TYPES as readonly string[]).includes(name);

/** The body of every delivery (public-api-v1.md 6.1). */
export interface PublicEnvelope<D = Record<string, unknown>> {
  /** The event id: identical across retries; receivers dedupe on it. */
  id: string;
  eventType: PublicEventName;
  /** UTC ISO-8601 with milliseconds. */
  occurredAt: string;
  data: D;
}

/** A public event derived from a domain event, before it is given its envelope id. */
export interface PublicEvent {
  eventType: PublicEventName;
  occurredAt: Date;
  data: Record<string, unknown>;
}

/**
 * What an issue status change is called publicly: exactly one event per change, the most
 * specific one (public-api-v1.md 3.2). Checked exhaustive by the compiler.
 */
export const ISSUE_STATUS_EVENT = {
  New: 'IssueUpdated',
  Acknowledged: 'IssueUpdated',
  InProgress: 'IssueUpdated',
  Fixed: 'IssueUpdated',
  RetestRequested: 'RetestRequested',
  RetestFixed: 'RetestCompleted',
  RetestFailed: 'RetestCompleted',
  Closed: 'IssueClosed',
  WontFix: 'IssueClosed',
  Duplicate: 'IssueClosed',
} as const satisfies Record<IssueStatus, PublicEventName>;

/** A status string outside the public list (should not happen) is treated as non-terminal. */
export function issueStatusEvent(newStatus: string): PublicEventName {
  return (ISSUE_STATUSES as readonly string[]).includes(newStatus) ? ISSUE_STATUS_EVENT[newStatus as IssueStatus] : 'IssueUpdated';
}

const nul = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
/** A message without its timestamp (a producer bug) shows as the epoch rather than failing delivery. */
const at = (t: Timestamp | undefined): Date => (t ? fromTimestamp(t) : new Date(0));

type ToPublic = { [K in DomainEventKind]: (m: DomainEventMessage<K>) => PublicEvent[] };

const campaignEvent = (eventType: 'CampaignLaunched' | 'CampaignClosed') => (m: DomainEventMessage<'CampaignLaunched' | 'CampaignClosed'>): PublicEvent[] => [
  { eventType, occurredAt: at(m.occurredAt), data: { campaignId: m.campaignId, name: nul(m.name), status: m.status } },
];

/**
 * The one mapping from domain events to public webhook events. Every kind must say what it
 * becomes, so a new domain event cannot be forgotten here.
 */
const TO_PUBLIC = {
  // Reserved publicly (6.3): selectable, never emitted.
  CampaignCreated: () => [],
  CampaignLaunched: campaignEvent('CampaignLaunched'),
  CampaignClosed: campaignEvent('CampaignClosed'),
  // Pausing and resuming have no public event.
  CampaignStatusChanged: () => [],
  ReportSealed: (m) => [
    {
      eventType: 'ReportSealed',
      occurredAt: at(m.occurredAt),
      data: {
        campaignId: m.campaignId,
        name: nul(m.name),
        siteId: m.siteId,
        siteName: nul(m.siteName),
        sealState: m.sealState,
        signedCount: m.signedCount,
        waivedCount: m.waivedCount,
        requiredCount: m.requiredCount,
        gate: m.gate,
        readinessLevel: m.readinessLevel,
        sealedVersion: m.sealedVersion,
        signedBy: [...m.signedBy],
        decision: m.decision,
      },
    },
  ],
  TesterCompleted: (m) => [
    {
      eventType: 'TesterCompleted',
      occurredAt: at(m.occurredAt),
      data: {
        campaignId: m.campaignId,
        campaignName: nul(m.campaignName),
        campaignTesterId: m.campaignTesterId,
        testerName: nul(m.testerName),
        verdict: nul(m.verdict),
        issuesReported: m.issuesReported,
      },
    },
  ],
  IssueCreated: (m) => [
    {
      eventType: 'IssueCreated',
      occurredAt: at(m.createdAt),
      data: {
        issueId: m.issueId,
        campaignId: m.campaignId,
        title: nul(m.title),
        severity: nul(m.severity),
        type: nul(m.type),
        status: m.status,
        pageUrl: nul(m.pageUrl),
      },
    },
  ],
  IssueStatusChanged: (m) => [
    {
      eventType: issueStatusEvent(m.newStatus),
      occurredAt: at(m.occurredAt),
      data: {
        issueId: m.issueId,
        campaignId: m.campaignId,
        title: nul(m.title),
        oldStatus: m.oldStatus,
        newStatus: m.newStatus,
        reason: nul(m.reason),
      },
    },
  ],
  // Assignment is not a status move; no public event.
  IssueAssigned: () => [],
} satisfies ToPublic;

/** The public webhook event(s) a domain event becomes: zero or one today. */
export function toPublicEvents(event: DomainEvent): PublicEvent[] {
  return (TO_PUBLIC[event.kind] as (m: DomainEvent['message']) => PublicEvent[])(event.message);
}

/** The delivery envelope. The only place its shape is built. */
export function buildEnvelope<D extends Record<string, unknown>>(input: {
  id: string;
  eventType: PublicEventName;
  occurredAt: Date | string;
  data: D;
}): PublicEnvelope<D> {
  const occurredAt = typeof input.occurredAt === 'string' ? new Date(input.occurredAt) : input.occurredAt;
  if (Number.isNaN(occurredAt.getTime())) throw new Error(`invalid occurredAt for ${input.eventType}`);
  return { id: input.id, eventType: input.eventType, occurredAt: occurredAt.toISOString(), data: input.data };
}

/**
 * Envelopes of every public event a domain event becomes, given the domain event's id. One
 * domain event yields at most one public event, so the envelope id is the domain event id:
 * stable across redeliveries and retries.
 */
export function envelopesFor(eventId: string, event: DomainEvent): PublicEnvelope[] {
  return toPublicEvents(event).map((p) => buildEnvelope({ id: eventId, ...p }));
}

// ---- Samples (GET /api/v1/events/{eventKey}/sample) -----------------------------------------

const SAMPLE = {
  eventId: '3f1c1e9a-8d0b-4c2e-9a57-0f6a2b7d4c11',
  orgId: '5b0e7c52-1f7a-4a8e-b1d3-2c9e6f4a8b20',
  campaignId: '8a4d2f10-6c3b-4e5a-9d7f-1b2c3d4e5f60',
  siteId: '1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  issueId: 'c7e5a3b1-9f8d-4e6c-a4b2-0d1e2f3a4b5c',
  occurredAt: new Date('2025-01-15T10:30:00.000Z'),
  campaignName: 'Spring launch',
  title: 'Checkout button does nothing on Safari',
} as const;

const ts = toTimestamp(SAMPLE.occurredAt);

const issueChange = (oldStatus: IssueStatus, newStatus: IssueStatus, reason: string): DomainEvent =>
  createEvent('IssueStatusChanged', {
    issueId: SAMPLE.issueId,
    orgId: SAMPLE.orgId,
    campaignId: SAMPLE.campaignId,
    title: SAMPLE.title,
    severity: 'High',
    oldStatus,
    newStatus,
    reason,
    occurredAt: ts,
  });

const campaignChange = (kind: 'CampaignLaunched' | 'CampaignClosed', oldStatus: string, status: string): DomainEvent =>
  createEvent(kind, { campaignId: SAMPLE.campaignId, orgId: SAMPLE.orgId, name: SAMPLE.campaignName, oldStatus, status, occurredAt: ts });

/**
 * A representative domain event for each public event: the sample goes through
 * `toPublicEvents` exactly like a real delivery.
 */
const SAMPLE_SOURCES = {
  CampaignLaunched: campaignChange('CampaignLaunched', 'Draft', 'Active'),
  CampaignClosed: campaignChange('CampaignClosed', 'Active', 'Closed'),
  ReportSealed: createEvent('ReportSealed', {
    campaignId: SAMPLE.campaignId,
    orgId: SAMPLE.orgId,
    name: SAMPLE.campaignName,
    siteId: SAMPLE.siteId,
    siteName: 'shop.example.com',
    sealState: 'sealed',
    signedCount: 2,
    waivedCount: 1,
    requiredCount: 3,
    gate: 'cleared',
    readinessLevel: 'ReadyWithIssues',
    sealedVersion: 4,
    signedBy: ['Dana Product', 'Lee QA'],
    decision: 'approve',
    occurredAt: ts,
  }),
  TesterCompleted: createEvent('TesterCompleted', {
    campaignId: SAMPLE.campaignId,
    orgId: SAMPLE.orgId,
    campaignName: SAMPLE.campaignName,
    campaignTesterId: 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b',
    testerName: 'Sam Tester',
    verdict: 'Pass',
    issuesReported: 3,
    occurredAt: ts,
  }),
  IssueCreated: createEvent('IssueCreated', {
    issueId: SAMPLE.issueId,
    orgId: SAMPLE.orgId,
    campaignId: SAMPLE.campaignId,
    seqNumber: 42,
    title: SAMPLE.title,
    severity: 'High',
    type: 'Bug',
    status: 'New',
    pageUrl: 'https://shop.example.com/checkout',
    testerEmail: 'tester@example.com',
    reporter: 'API key ci-bot',
    createdAt: ts,
  }),
  IssueUpdated: issueChange('New', 'Acknowledged', 'Reproduced on Safari 17'),
  IssueClosed: issueChange('RetestFixed', 'Closed', 'Verified in production'),
  RetestRequested: issueChange('Fixed', 'RetestRequested', 'Fix deployed to staging'),
  RetestCompleted: issueChange('RetestRequested', 'RetestFixed', 'Works now'),
} satisfies Record<PublicEventName, DomainEvent>;

/**
 * A representative envelope for a public event, built by the same code as real deliveries;
 * undefined for a name that is not emitted (reserved or unknown), which the route answers 404.
 */
export function sampleEnvelope(eventType: string): PublicEnvelope | undefined {
  if (!isPublicEvent(eventType)) return undefined;
  const envelope = envelopesFor(SAMPLE.eventId, SAMPLE_SOURCES[eventType]).find((e) => e.eventType === eventType);
  if (!envelope) throw new Error(`sample of ${eventType} does not map to ${eventType}`);
  return envelope;
}
