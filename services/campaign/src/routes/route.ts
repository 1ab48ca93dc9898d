import type { Express } from 'express';
import type { Kysely } from '@preflight/db';
import type { CampaignMetrics } from '../metrics.ts';
import type { EventTarget } from '../storage/campaign-changes.ts';
import type { CampaignDatabase } from '../storage/schema.ts';

/** What a route needs from the wiring. */
export interface RouteDeps {
  db: Kysely<CampaignDatabase>;
  /** Where the domain events of a change go (the outbox rows' subjects). */
  events: EventTarget;
  metrics: CampaignMetrics;
}

/** One endpoint: adds its handler to the app. */
export type RegisterRoute = (app: Express, deps: RouteDeps) => void;
