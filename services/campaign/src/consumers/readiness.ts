import type { ConsumedEvent, EventHandler } from '@preflight/bus';
import type { Kysely } from '@preflight/db';
import { decodeEvent, kindOfSubject, kindOfType, ownerSubjects, type DomainEvent } from '@preflight/events';
import type { Logger } from '@preflight/log';
import type { CampaignMetrics } from '../metrics.ts';
import { applyToStats, lockIssueStats, projectIssue, recomputeReadiness, storeIssueStats, type IssueState } from '../storage/readiness.ts';
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
 * The consumer's handler, inside the inbox transaction: lock the campaign's issue statistics,
 * upsert the issue's projection (highest revision wins), move the issue's count from its old
 * (severity, status) to the new one, then recompute the campaign's verdict from those counts
 * if the projection changed. An issue of
 * an unknown campaign keeps its projection row, and no verdict is computed.
 */
export function readinessHandler(deps: { prefix: string; logger: Logger; metrics: CampaignMetrics }): EventHandler<CampaignDatabase> {
  const log = deps.logger.child({ component: 'readiness' });
  return async (consumed: ConsumedEvent, trx: Kysely<CampaignDatabase>) => {
    const kind = (consumed.type && kindOfType(consumed.type)) || kindOfSubject(consumed.subject, deps.prefix);
    if (!kind) {
      // A newer issue service's event this build does not know: nothing to project.
      log.debug({ eventId: consumed.id, subject: consumed.subject, type: consumed.type }, 'unknown event type; ignored');
      return;
    }
    const state = issueStateOf(decodeEvent(kind, consumed.payload));
    if (!state) return;
    const before = await lockIssueStats(trx, state.campaignId);
    const projection = await projectIssue(trx, state);
    if (!projection.changed) {
      log.debug({ eventId: consumed.id, issueId: state.issueId, revision: state.revision }, 'stale or repeated issue revision; nothing changed');
      return;
    }
    const stats = applyToStats(before, state.issueId, projection.before, projection.after);
    await storeIssueStats(trx, state.campaignId, stats);
    const recompute = await recomputeReadiness(trx, state.campaignId, { prefix: deps.prefix }, stats);
    deps.metrics.readinessRecomputed.inc({ trigger: 'event', outcome: recompute.outcome });
    if (recompute.outcome === 'changed') {
      log.info({ campaignId: state.campaignId, ...recompute.verdict, reportVersion: recompute.report.version, eventId: consumed.id }, 'readiness changed');
    } else if (recompute.outcome === 'unchanged' && recompute.report.newVersion) {
      log.debug({ campaignId: state.campaignId, reportVersion: recompute.report.version, eventId: consumed.id }, 'new report version');
    }
  };
}
