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
    campaignIds: row.campaign_ids,
    events: row.events,
    minSeverity: row.min_severity,
    paused: row.paused,
    status: row.status,
    lastError: row.last_error,
    lastSuccessAt: row.last_success_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
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
    issueId: row.issue_id,
    action: row.action,
    outcome: row.outcome,
    statusCode: row.status_code,
    error: row.error,
    externalKey: row.external_key,
  };
}

export function toIssueLink(row: IssueLinkRow): ResponseOf<'adminListIssueLinks'>[number] {
  return { integrationId: row.connection_id, kind: row.kind, externalKey: row.external_key, url: row.url, syncedAt: row.synced_at.toISOString() };
}
