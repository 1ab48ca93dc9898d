import type { RouteRegistration } from '@preflight/service-kit';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { DeliveryClient } from '../clients/delivery-client.ts';
import type { KeyRing } from '@preflight/secret-box';
import type { EndpointChangeSignal } from '../signals/endpoints-changed.ts';
import type { TargetChecker } from '@preflight/net';
import type { DecryptFailureCounter } from '../views/endpoint-secrets.ts';
import type { WebhookDatabase } from '../storage/schema.ts';

/** What a route handler may use; built once in app.ts. */
export interface RouteContext {
  db: Kysely<WebhookDatabase>;
  keys: KeyRing;
  /** Counts a secret the ring could not open when a route needed it. */
  secretFailures?: DecryptFailureCounter;
  targets: TargetChecker;
  logger: Logger;
  /** Call after a committed change to an organisation's endpoints, before answering. */
  signal: Pick<EndpointChangeSignal, 'changed'>;
  /** The delivery service, for the admin list's stats. */
  delivery: DeliveryClient;
}

export type Registration = RouteRegistration<RouteContext>;
