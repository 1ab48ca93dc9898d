import type { RouteRegistration } from '@preflight/service-kit';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { WebhookClient } from '../clients/webhook-client.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';

/** What a route handler may use; built once in app.ts. */
export interface RouteContext {
  db: Kysely<DeliveryDatabase>;
  logger: Logger;
  /** The webhook service, which owns the endpoints. */
  webhooks: Pick<WebhookClient, 'webhookOrg' | 'endpointById'>;
  /** The NOTIFY channel that wakes every replica's claim loop. */
  channel: string;
  /** Attempts a delivery has in all (DELIVERY_RETRY_SCHEDULE_MS): the last one ends a failed delivery. */
  lastAttempt: number;
}

export type Registration = RouteRegistration<RouteContext>;
