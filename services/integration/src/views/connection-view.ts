import type { ConnectionRow } from '../storage/connections.ts';
import type { ActivityRow } from '../storage/activity.ts';
import { isTrackerKind } from '../providers/index.ts';

/** A connection as the admin API shows it (admin-api-v1.md, "Integrations"): never its credentials. */
export function toConnection(row: ConnectionRow, inboundUrl: (id: string) => string) {
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
    // Trackers: where to point their webhook (the secret is shown once, at creation).
    ...(isTrackerKind(row.kind) ? { inbound: { url: inboundUrl(row.id) } } : {}),
  };
}

export function toActivity(row: ActivityRow) {
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
