import type { EventTarget } from '@preflight/bus';
import type { RouteRegistration } from '@preflight/service-kit';
import type { Kysely } from '@preflight/db';
import type { CampaignMetrics } from '../metrics.ts';
import type { CampaignDatabase } from '../storage/schema.ts';

/** What a route handler may use; built once in app.ts. */
export interface RouteContext {
  db: Kysely<CampaignDatabase>;
  /** Where the domain events of a change go (the outbox rows' subjects). */
  events: EventTarget;
  metrics: CampaignMetrics;
}

export type Registration = RouteRegistration<RouteContext>;
