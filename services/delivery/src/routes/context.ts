import type { Express } from 'express';
import type { Kysely } from '@preflight/db';
import type { WebhookClient } from '../clients/webhook-client.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';

/** What a route handler may use; built once in app.ts. */
export interface RouteContext {
  db: Kysely<DeliveryDatabase>;
  /** The webhook service, which owns the endpoints. */
  webhooks: Pick<WebhookClient, 'webhookExists'>;
}

export type Registration = (app: Express, ctx: RouteContext) => void;
