import type { ConsumedEvent, EventTarget } from '@preflight/bus';
import type { Kysely } from '@preflight/db';
import { decodeEvent, kindOfSubject, kindOfType, ownerSubjects, type DomainEvent } from '@preflight/events';
import type { Logger } from '@preflight/log';
import type { CampaignMetrics } from '../metrics.ts';
import { applyToStats, mergeIssueStates, type IssueState } from '../domain/issue-stats.ts';
import { lockIssueStats, projectIssues, storeIssueStats } from '../storage/issue-projection.ts';
import { recomputeReadiness } from '../storage/readiness.ts';
import type { CampaignDatabase } from '../storage/schema.ts';

/** The durable consumer's name: replicas share it, and it labels the inbox rows and metrics. */
export const READINESS_CONSUMER = 'campaign-readiness';

/** The one subject it listens on (one filter subject: NATS 2.9 takes no more). */
export const readinessSubject = (prefix: string): string => ownerSubjects('issue', prefix);

/** The issue state an event carries, or undefined for events that do not move readiness. */
export function issueStateOf(event: DomainEvent): IssueState | undefined {
  switch (event.kind) {
    case 'IssueCreated': {
      const m = event.message;
      return {
        issueId: m.issueId,
        campaignId: m.campaignId,
        orgId: m.orgId || null,
        severity: m.severity ?? null,
        status: m.status,
        revision: m.revision,
        testerEmail: m.testerEmail ?? null,
      };
    }
    case 'IssueStatusChanged': {
      const m = event.message;
      return { issueId: m.issueId, campaignId: m.campaignId, orgId: m.orgId || null, severity: m.severity ?? null, status: m.newStatus, revision: m.revision, testerEmail: null };
    }
    // The assignee does not bear on readiness; campaign events never reach this consumer.
    case 'IssueAssigned':
    case 'CampaignCreated':
    case 'CampaignLaunched':
    case 'CampaignClosed':
    case 'CampaignStatusChanged':
    case 'ReportSealed':
    case 'TesterCompleted':
      return undefined;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/**
 * The consumer's batch handler, inside the inbox transaction, with the batch's fresh events in
 * stream order. Per campaign the events touch: lock its issue statistics once, upsert the
 * projection of every issue the events name in one statement (one state per issue, the highest
 * revision winning: `mergeIssueStates`), move each changed issue's count
 * from its old (severity, status) to the new one, store the statistics once, then recompute the
 * campaign's verdict once if any projection changed. So a report version reflects the batch,
 * not each event in it. An issue of an unknown campaign keeps its projection row, and no
 * verdict is computed.
 */
export function readinessBatchHandler(deps: { events: EventTarget; logger: Logger; metrics: CampaignMetrics }): (events: ConsumedEvent[], trx: Kysely<CampaignDatabase>) => Promise<void> {
  const log = deps.logger.child({ component: 'readiness' });
  return async (consumed, trx) => {
    const byCampaign = new Map<string, Array<{ state: IssueState; eventId: string }>>();
    for (const event of consumed) {
      const kind = (event.type && kindOfType(event.type)) || kindOfSubject(event.subject, deps.events.subjectPrefix);
      if (!kind) {
        // A newer issue service's event this build does not know: nothing to project.
        log.debug({ eventId: event.id, subject: event.subject, type: event.type }, 'unknown event type; ignored');
        continue;
      }
      const state = issueStateOf(decodeEvent(kind, event.payload));
      if (!state) continue;
      // uuids: one campaign spelt in two cases is one row, so it must be one group and one place in the lock order.
      const key = state.campaignId.toLowerCase();
      const group = byCampaign.get(key);
      if (group) group.push({ state, eventId: event.id });
      else byCampaign.set(key, [{ state, eventId: event.id }]);
    }
    // Every transaction of this consumer locks its campaigns (statistics row, then campaign row)
    // in this one order, so batches running in parallel may wait on each other but never in a
    // cycle. Stamps, waivers, signer and policy changes lock a campaign row alone.
    for (const campaignId of [...byCampaign.keys()].sort()) {
      const issues = byCampaign.get(campaignId)!;
      let stats = await lockIssueStats(trx, campaignId);
      const merged = mergeIssueStates(issues.map((i) => i.state));
      const projections = await projectIssues(trx, merged);
      let changed = false;
      for (const state of merged) {
        const projection = projections.get(state.issueId.toLowerCase());
        if (!projection?.changed) {
          log.debug({ campaignId, issueId: state.issueId, revision: state.revision }, 'stale or repeated issue revision; nothing changed');
          continue;
        }
        stats = applyToStats(stats, state.issueId, projection.before, projection.after);
        changed = true;
      }
      if (!changed) continue;
      await storeIssueStats(trx, campaignId, stats);
      const recompute = await recomputeReadiness(trx, campaignId, deps.events, stats);
      deps.metrics.readinessRecomputed.inc({ trigger: 'event', outcome: recompute.outcome });
      const eventIds = issues.map((i) => i.eventId);
      if (recompute.outcome === 'changed') {
        log.info({ campaignId, ...recompute.verdict, reportVersion: recompute.report.version, eventIds }, 'readiness changed');
      } else if (recompute.outcome === 'unchanged' && recompute.report.newVersion) {
        log.debug({ campaignId, reportVersion: recompute.report.version, eventIds }, 'new report version');
      }
    }
  };
}
