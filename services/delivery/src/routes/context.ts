import type { Express } from 'express';
import type { Kysely } from '@preflight/db';
import type { DeliveryDatabase } from '../storage/schema.ts';

/** What a route handler may use; built once in app.ts. */
export interface RouteContext {
  db: Kysely<DeliveryDatabase>;
}

export type Registration = (app: Express, ctx: RouteContext) => void;
