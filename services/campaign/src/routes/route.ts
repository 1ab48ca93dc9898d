import type { Express } from 'express';
import type { Kysely } from '@preflight/db';
import type { CampaignDatabase } from '../storage/schema.ts';

/** What a route needs from the wiring. */
export interface RouteDeps {
  db: Kysely<CampaignDatabase>;
}

/** One endpoint: adds its handler to the app. */
export type RegisterRoute = (app: Express, deps: RouteDeps) => void;
