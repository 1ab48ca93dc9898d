import type { Kysely } from '@preflight/db';
import type { IssueStatus } from '@preflight/contract';
import { toIssueDetail, type IssueClient, type InternalIssue } from '../clients/issue-client.ts';
import { inboundTarget } from '../domain/inbound-status.ts';
import { originOf } from '../domain/origin.ts';
import { isTrackerKind } from '../providers/index.ts';
import type { ChatMessage, IssueCard, TrackerKind } from '../providers/provider.ts';
import type { ActivityEntry } from '../storage/activity.ts';
import type { ConnectionRow } from '../storage/connections.ts';
import { createPending, outboundRunning, type JobRow } from '../storage/jobs.ts';
import { externalIssueOf, findLink, saveLink, setLinkState } from '../storage/links.ts';
import type { IntegrationDatabase } from '../storage/schema.ts';
import type { ConnectionClients } from './connection-clients.ts';
import type { AnnouncePayload, CreatePayload, InboundPayload, SyncPayload } from './payloads.ts';

export interface ActionDeps {
  db: Kysely<IntegrationDatabase>;
  issues: IssueClient;
  clients: ConnectionClients;
  /** The dashboard link of an issue. */
  linkOf(issue: { issueId: string; campaignId: string }): string;
}

/** A job's result: finished (with its activity entry), or to run again later without counting a try. */
export type ActionOutcome =
  | { kind: 'done'; activity: Omit<ActivityEntry, 'connectionId'> }
  | { kind: 'wait'; delayMs: number; why: string };

/** How long a status sync waits for the create of its tracker issue, and a hook for a sync in flight, to finish. */
const CREATE_WAIT_MS = 2_000;
const OUTBOUND_WAIT_MS = 1_000;
/** The status an issue is filed in (the issue workflow's initial status). */
const INITIAL_STATUS: IssueStatus = 'New';

const done = (activity: Omit<ActivityEntry, 'connectionId'>): ActionOutcome => ({ kind: 'done', activity });

/** Runs one claimed job. Provider and issue-service failures are thrown; the worker decides on retries. */
export async function runAction(deps: ActionDeps, job: JobRow & { linked?: boolean | null }, connection: ConnectionRow): Promise<ActionOutcome> {
  switch (job.action) {
    case 'announce':
      return announce(deps, connection, job.payload as unknown as AnnouncePayload);
    case 'create':
      return createTrackerIssue(deps, trackerOf(connection), job.payload as unknown as CreatePayload, job.attempts, job.linked ?? null);
    case 'sync-status':
      return syncStatus(deps, trackerOf(connection), job.payload as unknown as SyncPayload);
    case 'apply-inbound':
      return applyInbound(deps, connection, job.payload as unknown as InboundPayload);
  }
}

function trackerOf(connection: ConnectionRow): ConnectionRow & { kind: TrackerKind } {
  if (!isTrackerKind(connection.kind)) throw new Error(`connection ${connection.id} is not a tracker`);
  return connection as ConnectionRow & { kind: TrackerKind };
}

function cardOf(deps: ActionDeps, issue: InternalIssue): IssueCard {
  const { link: _omitted, ...rest } = toIssueDetail(issue, '');
  return { ...rest, link: deps.linkOf({ issueId: issue.id, campaignId: issue.campaignId }) };
}

async function announce(deps: ActionDeps, connection: ConnectionRow, p: AnnouncePayload): Promise<ActionOutcome> {
  let message: ChatMessage;
  if (p.event === 'Other') message = { event: 'Other', issue: null, text: p.text };
  else if (p.event === 'IssueCreated' && p.card.campaignName !== null) {
    message = { event: 'IssueCreated', issue: { ...p.card, link: deps.linkOf(p.card) } };
  } else {
    // The event lacks what the card shows (a status change, a campaign not seen yet): ask the issue service.
    const issue = await deps.issues.issue(p.issueId);
    if (!issue) return done({ direction: 'out', issueId: p.issueId, action: 'announce', outcome: 'skipped', error: 'the issue no longer exists' });
    const card = cardOf(deps, issue);
    message = p.event === 'IssueCreated' ? { event: 'IssueCreated', issue: { ...card, status: p.card.status } } : { event: p.event, issue: card, oldStatus: p.oldStatus, reason: p.reason };
  }
  const result = await deps.clients.chat(connection).post(message);
  return done({ direction: 'out', issueId: p.issueId, action: 'announce', outcome: 'succeeded', statusCode: result.statusCode });
}

/**
 * Exactly one tracker issue per Preflight issue: a link already stored ends the job; a try
 * after one that may have reached the tracker (a crash between its answer and our commit, a
 * timeout) first looks for the issue by its marker. `linkedAtClaim`: what the claim found
 * (false: no link, read in the claim's statement; null: not known, looked up here).
 */
async function createTrackerIssue(deps: ActionDeps, connection: ConnectionRow & { kind: TrackerKind }, p: CreatePayload, attempt: number, linkedAtClaim: boolean | null): Promise<ActionOutcome> {
  const existing = linkedAtClaim === false ? undefined : await findLink(deps.db, connection.id, p.issueId);
  if (existing) return done({ direction: 'out', issueId: p.issueId, action: 'create', outcome: 'skipped', externalKey: existing.externalKey, error: 'already linked' });
  const issue = await deps.issues.issue(p.issueId);
  if (!issue) return done({ direction: 'out', issueId: p.issueId, action: 'create', outcome: 'skipped', error: 'the issue no longer exists' });
  const client = deps.clients.tracker(connection);
  const found = attempt > 1 ? await client.findByMarker(p.issueId) : null;
  const external = found ?? (await client.create(toIssueDetail(issue, deps.linkOf({ issueId: issue.id, campaignId: issue.campaignId }))));
  await saveLink(deps.db, connection.id, p.issueId, external);
  // A status change made before the link existed was waiting for it; the current status wins.
  // A new issue still New is where the tracker put it (open): no call.
  const moved = issue.status === INITIAL_STATUS && !found ? null : await client.syncStatus(external, issue.status, null);
  if (moved) await setLinkState(deps.db, connection.id, p.issueId, moved.state);
  return done({ direction: 'out', issueId: p.issueId, action: found ? 'link' : 'create', outcome: 'succeeded', externalKey: external.externalKey, statusCode: found ? 200 : 201 });
}

/** Brings the tracker issue to the Preflight issue's current status (so changes applied out of order still end right). */
async function syncStatus(deps: ActionDeps, connection: ConnectionRow & { kind: TrackerKind }, p: SyncPayload): Promise<ActionOutcome> {
  const link = await findLink(deps.db, connection.id, p.issueId);
  if (!link) {
    if (await createPending(deps.db, connection.id, p.issueId)) return { kind: 'wait', delayMs: CREATE_WAIT_MS, why: 'waiting for the tracker issue to be created' };
    return done({ direction: 'out', issueId: p.issueId, action: 'sync-status', outcome: 'skipped', error: 'no linked tracker issue' });
  }
  const issue = await deps.issues.issue(p.issueId);
  if (!issue) return done({ direction: 'out', issueId: p.issueId, action: 'sync-status', outcome: 'skipped', externalKey: link.externalKey, error: 'the issue no longer exists' });
  const moved = await deps.clients.tracker(connection).syncStatus(externalIssueOf(link), issue.status, p.reason);
  if (!moved) return done({ direction: 'out', issueId: p.issueId, action: 'sync-status', outcome: 'skipped', externalKey: link.externalKey, error: `already ${link.state}` });
  await setLinkState(deps.db, connection.id, p.issueId, moved.state);
  return done({ direction: 'out', issueId: p.issueId, action: 'sync-status', outcome: 'succeeded', externalKey: link.externalKey, statusCode: 200 });
}

/** A verified tracker change, through the issue service's workflow (history, events, webhooks). */
async function applyInbound(deps: ActionDeps, connection: ConnectionRow, p: InboundPayload): Promise<ActionOutcome> {
  const base = { direction: 'in' as const, issueId: p.issueId, action: 'status-change', externalKey: p.externalKey };
  // A push of ours still in flight may be what this hook reports: wait for it to record the state it set.
  if (await outboundRunning(deps.db, connection.id, p.issueId)) return { kind: 'wait', delayMs: OUTBOUND_WAIT_MS, why: 'waiting for a sync to this tracker issue to finish' };
  const link = await findLink(deps.db, connection.id, p.issueId);
  if (link?.state === p.state) return done({ ...base, outcome: 'skipped', error: `echo: the tracker issue is already ${p.state}, as last synced` });
  const issue = await deps.issues.issue(p.issueId);
  if (!issue) return done({ ...base, outcome: 'skipped', error: 'the issue no longer exists' });
  const decision = inboundTarget(p.change, issue.status);
  await setLinkState(deps.db, connection.id, p.issueId, p.state);
  if ('skip' in decision) return done({ ...base, outcome: 'skipped', error: decision.skip });
  const answer = await deps.issues.changeStatus(p.issueId, { to: decision.to, reason: `${describe(p)} (${connection.kind}: ${p.externalKey})`, origin: originOf(connection.id) });
  switch (answer.kind) {
    case 'changed':
      return done({ ...base, outcome: 'succeeded', statusCode: 200 });
    case 'not_found':
      return done({ ...base, outcome: 'skipped', statusCode: 404, error: 'the issue no longer exists' });
    case 'not_allowed':
      return done({ ...base, outcome: 'skipped', statusCode: 409, error: `the workflow does not allow it: ${answer.detail}` });
  }
}

function describe(p: InboundPayload): string {
  const to = (s: IssueStatus | null) => (s ? ` → ${s}` : '');
  switch (p.change.kind) {
    case 'closed-completed':
      return 'Closed as completed in the tracker';
    case 'closed-not-planned':
      return 'Closed as not planned in the tracker';
    case 'reopened':
      return 'Reopened in the tracker';
    case 'mapped':
      return `Moved to '${p.change.name}' in the tracker${to(p.change.to)}`;
  }
}
