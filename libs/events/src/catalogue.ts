import { create, fromBinary, toBinary, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import type { GenMessage } from '@bufbuild/protobuf/codegenv2';
import { timestampDate, timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import {
  CampaignClosedSchema,
  CampaignCreatedSchema,
  CampaignLaunchedSchema,
  CampaignStatusChangedSchema,
  ReportSealedSchema,
  TesterCompletedSchema,
} from './gen/preflight/campaign/v1/events_pb.ts';
import { IssueAssignedSchema, IssueCreatedSchema, IssueStatusChangedSchema } from './gen/preflight/issue/v1/events_pb.ts';
import type { CampaignStatus } from './enums.ts';

/** The services that own (emit) domain events; the second token of every subject. */
export type EventOwner = 'campaign' | 'issue';

/** The default first token of every subject; tests pass an isolated one. */
export const DEFAULT_SUBJECT_PREFIX = 'preflight';

interface CatalogueEntry {
  /** The service that emits the event; nobody else publishes on its subject. */
  owner: EventOwner;
  /** The last subject token, snake_case: `<prefix>.<owner>.<name>`. */
  name: string;
  schema: GenMessage<any>;
}

/**
 * Every domain event: its owner, subject name and protobuf schema. Adding a message to
 * proto/ and not here (or the other way round) fails the catalogue test; adding a kind here
 * fails compilation until `toPublicEvents` says what it becomes publicly.
 */
export const DOMAIN_EVENTS = {
  CampaignCreated: { owner: 'campaign', name: 'created', schema: CampaignCreatedSchema },
  CampaignLaunched: { owner: 'campaign', name: 'launched', schema: CampaignLaunchedSchema },
  CampaignClosed: { owner: 'campaign', name: 'closed', schema: CampaignClosedSchema },
  CampaignStatusChanged: { owner: 'campaign', name: 'status_changed', schema: CampaignStatusChangedSchema },
  ReportSealed: { owner: 'campaign', name: 'report_sealed', schema: ReportSealedSchema },
  TesterCompleted: { owner: 'campaign', name: 'tester_completed', schema: TesterCompletedSchema },
  IssueCreated: { owner: 'issue', name: 'created', schema: IssueCreatedSchema },
  IssueStatusChanged: { owner: 'issue', name: 'status_changed', schema: IssueStatusChangedSchema },
  IssueAssigned: { owner: 'issue', name: 'assigned', schema: IssueAssignedSchema },
} as const satisfies Record<string, CatalogueEntry>;

type Catalogue = typeof DOMAIN_EVENTS;
export type DomainEventKind = keyof Catalogue;
export type DomainEventSchema<K extends DomainEventKind> = Catalogue[K]['schema'];
export type DomainEventMessage<K extends DomainEventKind> = MessageShape<DomainEventSchema<K>>;
export type DomainEventInit<K extends DomainEventKind> = MessageInitShape<DomainEventSchema<K>>;

/** A decoded domain event: the kind discriminates the message type. */
export type DomainEvent = { [K in DomainEventKind]: { kind: K; message: DomainEventMessage<K> } }[DomainEventKind];

export const DOMAIN_EVENT_KINDS = Object.keys(DOMAIN_EVENTS) as DomainEventKind[];

/** `<prefix>.<owner>.<name>`, for example `preflight.issue.status_changed`. */
export function subjectOf(kind: DomainEventKind, prefix: string = DEFAULT_SUBJECT_PREFIX): string {
  const entry = DOMAIN_EVENTS[kind];
  return `${prefix}.${entry.owner}.${entry.name}`;
}

/** The subjects one owner publishes on, as a wildcard: `<prefix>.<owner>.>`. */
export function ownerSubjects(owner: EventOwner, prefix: string = DEFAULT_SUBJECT_PREFIX): string {
  return `${prefix}.${owner}.>`;
}

/** Every domain event subject under a prefix: the stream's subject filter, `<prefix>.>`. */
export function allSubjects(prefix: string = DEFAULT_SUBJECT_PREFIX): string {
  return `${prefix}.>`;
}

/** The fully qualified protobuf name of a kind, e.g. `preflight.issue.v1.IssueStatusChanged`. */
export function typeNameOf(kind: DomainEventKind): string {
  return DOMAIN_EVENTS[kind].schema.typeName;
}

const byTypeName = new Map<string, DomainEventKind>(DOMAIN_EVENT_KINDS.map((k) => [typeNameOf(k), k]));

/** The kind of a fully qualified type name or a bare kind name; undefined when unknown. */
export function kindOfType(type: string): DomainEventKind | undefined {
  if (Object.hasOwn(DOMAIN_EVENTS, type)) return type as DomainEventKind;
  return byTypeName.get(type);
}

/** The kind published on a subject under `prefix`; undefined for a foreign subject. */
export function kindOfSubject(subject: string, prefix: string = DEFAULT_SUBJECT_PREFIX): DomainEventKind | undefined {
  return DOMAIN_EVENT_KINDS.find((k) => subjectOf(k, prefix) === subject);
}

/** Builds a message of a kind (proto3 defaults for what `init` leaves out). */
export function createEvent<K extends DomainEventKind>(kind: K, init: DomainEventInit<K>): DomainEvent {
  return { kind, message: create(DOMAIN_EVENTS[kind].schema as GenMessage<any>, init as any) } as DomainEvent;
}

/** The NATS headers every published domain event carries besides `Nats-Msg-Id`: its protobuf type name and its organisation. */
export const EVENT_TYPE_HEADER = 'Preflight-Event-Type';
export const ORG_ID_HEADER = 'Preflight-Org-Id';

/** What `enqueueEvent` (libs/bus) needs to put a domain event in the outbox. */
export interface EncodedEvent {
  subject: string;
  /** The fully qualified protobuf type name. */
  type: string;
  payload: Uint8Array;
}

/** Binary protobuf encoding plus the subject and type the outbox row carries. */
export function encodeEvent(event: DomainEvent, prefix: string = DEFAULT_SUBJECT_PREFIX): EncodedEvent {
  const schema = DOMAIN_EVENTS[event.kind].schema as GenMessage<any>;
  return { subject: subjectOf(event.kind, prefix), type: schema.typeName, payload: toBinary(schema, event.message) };
}

/** Decodes a payload of a known kind (or type name). Throws on an unknown kind or bad bytes. */
export function decodeEvent(kindOrType: string, payload: Uint8Array): DomainEvent {
  const kind = kindOfType(kindOrType);
  if (!kind) throw new Error(`unknown domain event type: ${kindOrType}`);
  return { kind, message: fromBinary(DOMAIN_EVENTS[kind].schema as GenMessage<any>, payload) } as DomainEvent;
}

/**
 * The one rule for which campaign event a status change emits: exactly one, the most
 * specific. Draft → Active launches; any move to Closed closes; anything else (pausing,
 * resuming) is a plain status change.
 */
export function campaignStatusEventKind(
  oldStatus: CampaignStatus,
  newStatus: CampaignStatus,
): 'CampaignLaunched' | 'CampaignClosed' | 'CampaignStatusChanged' {
  if (newStatus === 'Closed') return 'CampaignClosed';
  if (newStatus === 'Active' && oldStatus === 'Draft') return 'CampaignLaunched';
  return 'CampaignStatusChanged';
}

export const toTimestamp = (d: Date): Timestamp => timestampFromDate(d);
export const fromTimestamp = (t: Timestamp): Date => timestampDate(t);
