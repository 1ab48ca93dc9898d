import type { Express } from 'express';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { KeyRing } from '../domain/secret-box.ts';
import type { EndpointChangeSignal } from '../signals/endpoints-changed.ts';
import type { TargetChecker } from '../targets/target-check.ts';
import type { WebhookDatabase } from '../storage/schema.ts';

/** What a route handler may use; built once in app.ts. */
export interface RouteContext {
  db: Kysely<WebhookDatabase>;
  keys: KeyRing;
  targets: TargetChecker;
  logger: Logger;
  /** Call after a committed change to an organisation's endpoints, before answering. */
  signal: Pick<EndpointChangeSignal, 'changed'>;
}

export type Registration = (app: Express, ctx: RouteContext) => void;
