import type { ResponseOf } from '@preflight/contract';
import type { ConnectionRow } from '../storage/connections.ts';
import type { ActivityRow } from '../storage/activity.ts';
import type { IssueLinkRow } from '../storage/links.ts';
import { isTrackerKind } from '../providers/index.ts';

/** A connection's settings and health as the admin API shows them (admin-api-v1.md, "Integrations"): never its credentials. */
function settingsOf(row: ConnectionRow) {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    config: row.config,
    campaignIds: row.campaignIds,
    events: row.events,
    minSeverity: row.minSeverity,
    paused: row.paused,
    status: row.status,
    lastError: row.lastError,
    lastSuccessAt: row.lastSuccessAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Trackers also say where to point their webhook (the secret is shown once, at creation). */
export function toConnection(row: ConnectionRow, inboundUrl: (id: string) => string): ResponseOf<'adminUpdateIntegration'> {
  return { ...settingsOf(row), ...(isTrackerKind(row.kind) ? { inbound: { url: inboundUrl(row.id) } } : {}) };
}

/** A new connection: a tracker's inbound secret, shown this once. */
export function toCreatedConnection(row: ConnectionRow, inbound: { url: string; secret: string } | null): ResponseOf<'adminCreateIntegration'> {
  return { ...settingsOf(row), ...(inbound ? { inbound } : {}) };
}

export function toActivity(row: ActivityRow): ResponseOf<'adminListIntegrationActivity'>[number] {
  return {
    at: row.at.toISOString(),
    direction: row.direction,
    issueId: row.issueId,
    action: row.action,
    outcome: row.outcome,
    statusCode: row.statusCode,
    error: row.error,
    externalKey: row.externalKey,
  };
}

export function toIssueLink(row: IssueLinkRow): ResponseOf<'adminListIssueLinks'>[number] {
  return { integrationId: row.connectionId, kind: row.kind, externalKey: row.externalKey, url: row.url, syncedAt: row.syncedAt.toISOString() };
}
