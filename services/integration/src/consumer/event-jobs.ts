import type { BatchEventHandler, ConsumedEvent } from '@preflight/bus';
import { SEVERITY_RANK, type IssueSeverity, type IssueStatus } from '@preflight/contract';
import { decodeEvent, fromTimestamp, kindOfSubject, toPublicEvents, type DomainEvent } from '@preflight/events';
import type { Logger } from '@preflight/log';
import { isTrackerKind } from '../providers/index.ts';
import { originOf } from '../domain/origin.ts';
import type { ConnectedOrgs } from './connected-orgs.ts';
import { campaignText } from '../domain/campaign-text.ts';
import { campaignNames, upsertCampaign } from '../storage/campaigns.ts';
import { liveConnectionsOf, type LiveConnection } from '../storage/connections.ts';
import { createPending, enqueueJobs, type NewJob } from '../storage/jobs.ts';
import { findLink } from '../storage/links.ts';
import type { IntegrationDatabase } from '../storage/schema.ts';
import type { AnnouncePayload, StatusEvent } from '../worker/payloads.ts';

/** The durable consumer of every domain event; also labels its inbox rows and metrics. */
export const SYNC_CONSUMER = 'integration-sync';

class BadEvent extends Error {
  override readonly name = 'BadIntegrationEvent';
}

/** An issue of `severity` reaches a connection with `minSeverity` (null: every issue). */
export function passesSeverity(minSeverity: string | null, severity: string | null | undefined): boolean {
  if (!minSeverity) return true;
  const rank = SEVERITY_RANK as Record<string, number>;
  const min = rank[minSeverity as IssueSeverity];
  const got = severity ? rank[severity] : undefined;
  // SEVERITY_RANK: 0 is the most severe.
  return min === undefined || (got !== undefined && got <= min);
}

/**
 * Turns each domain event into the jobs of the connections it reaches, inside the consumer's
 * transaction (with the inbox row): chat announcements of the events a channel selected, a
 * tracker issue per IssueCreated, a status sync per status change of a linked issue (except on
 * the tracker the change came from). Campaign events keep the campaign names messages show.
 */
export function eventJobsHandler(subjectPrefix: string, logger: Logger, replicaId: string): BatchEventHandler<IntegrationDatabase> {
  return async (batch, trx) => {
    const events = batch.map((consumed) => {
      const kind = consumed.type ?? kindOfSubject(consumed.subject, subjectPrefix);
      if (!kind) throw new BadEvent(`no event type on subject '${consumed.subject}'`);
      return { id: consumed.id, event: decodeEvent(kind, consumed.payload) };
    });
    for (const { event } of events) await rememberCampaign(trx, event);
    // One lookup of the batch's organisations' connections and campaign names, not one per event.
    const scoped = events.filter(({ event }) => event.message.orgId && event.message.campaignId);
    const connections = await liveConnectionsOf(trx, [...new Set(scoped.map(({ event }) => event.message.orgId))]);
    const names = await campaignNames(trx, [...new Set(scoped.map(({ event }) => event.message.campaignId))]);
    const jobs: NewJob[] = [];
    for (const { id, event } of scoped) {
      const reached = (connections.get(event.message.orgId) ?? []).filter((c) => c.campaignIds === null || c.campaignIds.includes(event.message.campaignId));
      if (reached.length > 0) jobs.push(...(await jobsFor(trx, id, event, reached, names)));
    }
    const queued = await enqueueJobs(trx, jobs, replicaId);
    if (queued > 0) logger.debug({ events: batch.length, jobs: queued }, 'integration jobs queued');
  };
}

/** The events whose campaign names and organisation this service keeps, connections or not. */
const REMEMBERED = new Set(['CampaignCreated', 'CampaignLaunched', 'CampaignClosed', 'CampaignStatusChanged']);

/**
 * The consumer's `wants`: false for an event of an organisation without a live connection,
 * which is then acked without a transaction (most organisations have none). An event without
 * the organisation header, or one whose campaign this service remembers, always goes through.
 */
export function eventWanted(connected: ConnectedOrgs, subjectPrefix: string): (consumed: ConsumedEvent) => Promise<boolean> {
  return async (consumed) => {
    const kind = consumed.type ?? kindOfSubject(consumed.subject, subjectPrefix);
    if (!consumed.orgId || !kind || REMEMBERED.has(kind)) return true;
    return connected.has(consumed.orgId);
  };
}

type Trx = Parameters<BatchEventHandler<IntegrationDatabase>>[1];

async function rememberCampaign(trx: Trx, event: DomainEvent): Promise<void> {
  switch (event.kind) {
    case 'CampaignCreated':
      if (event.message.createdAt) await upsertCampaign(trx, { campaignId: event.message.campaignId, orgId: event.message.orgId, name: event.message.name ?? null, at: fromTimestamp(event.message.createdAt) });
      return;
    case 'CampaignLaunched':
    case 'CampaignClosed':
    case 'CampaignStatusChanged':
      if (event.message.occurredAt) await upsertCampaign(trx, { campaignId: event.message.campaignId, orgId: event.message.orgId, name: event.message.name ?? null, at: fromTimestamp(event.message.occurredAt) });
      return;
    default:
  }
}

async function jobsFor(trx: Trx, eventId: string, event: DomainEvent, connections: LiveConnection[], names: ReadonlyMap<string, string | null>): Promise<NewJob[]> {
  const publicEvent = toPublicEvents(event)[0];
  const jobs: NewJob[] = [];

  for (const c of connections) {
    if (isTrackerKind(c.kind)) {
      const job = await trackerJob(trx, c, eventId, event);
      if (job) jobs.push(job);
    } else if (publicEvent && c.events.includes(publicEvent.eventType)) {
      const payload = announcePayload(event, publicEvent.eventType, names);
      // The severity floor is about issues; a campaign's events always pass it.
      if (payload && (payload.event === 'Other' || passesSeverity(c.minSeverity, payload.severity))) {
        jobs.push({ connectionId: c.id, issueId: payload.issueId, action: 'announce', dedupeKey: `${eventId}:announce`, payload: payload as unknown as Record<string, unknown> });
      }
    }
  }
  return jobs;
}

async function trackerJob(trx: Trx, c: LiveConnection, eventId: string, event: DomainEvent): Promise<NewJob | undefined> {
  if (event.kind === 'IssueCreated') {
    const m = event.message;
    if (!c.events.includes('IssueCreated') || !passesSeverity(c.minSeverity, m.severity)) return undefined;
    return { connectionId: c.id, issueId: m.issueId, action: 'create', dedupeKey: `${eventId}:create`, payload: { issueId: m.issueId } };
  }
  if (event.kind === 'IssueStatusChanged') {
    const m = event.message;
    // The change came from this tracker: sending it back would echo.
    if (m.origin === originOf(c.id)) return undefined;
    if (!(await findLink(trx, c.id, m.issueId)) && !(await createPending(trx, c.id, m.issueId))) return undefined;
    return { connectionId: c.id, issueId: m.issueId, action: 'sync-status', dedupeKey: `${eventId}:sync`, payload: { issueId: m.issueId, reason: m.reason ?? null } };
  }
  return undefined;
}

/** What an announcement needs that the event carries; the worker fills in the rest from the issue service. */
function announcePayload(event: DomainEvent, eventType: string, names: ReadonlyMap<string, string | null>): AnnouncePayload | undefined {
  switch (event.kind) {
    case 'IssueCreated': {
      const m = event.message;
      return {
        event: 'IssueCreated',
        issueId: m.issueId,
        severity: m.severity ?? null,
        card: {
          issueId: m.issueId,
          seqNumber: m.seqNumber,
          title: m.title ?? '',
          severity: m.severity ?? null,
          type: m.type ?? null,
          status: m.status as IssueStatus,
          campaignId: m.campaignId,
          campaignName: names.get(m.campaignId) ?? null,
          pageUrl: m.pageUrl ?? null,
          reporter: m.testerEmail ?? m.reporter ?? null,
          createdAt: (m.createdAt ? fromTimestamp(m.createdAt) : new Date()).toISOString(),
        },
      };
    }
    case 'IssueStatusChanged': {
      const m = event.message;
      return { event: eventType as StatusEvent, issueId: m.issueId, severity: m.severity ?? null, oldStatus: m.oldStatus as IssueStatus, reason: m.reason ?? null };
    }
    case 'CampaignLaunched':
    case 'CampaignClosed':
    case 'ReportSealed':
    case 'TesterCompleted':
      return { event: 'Other', issueId: null, severity: null, text: campaignText(event) };
    default:
      return undefined;
  }
}
