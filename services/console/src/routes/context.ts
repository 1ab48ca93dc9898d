import type { RouteRegistration } from '@preflight/service-kit';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { ConsoleMetrics } from '../metrics.ts';
import type { SessionStore } from '../sessions/store.ts';
import type { ConsoleDatabase } from '../storage/schema.ts';

/** What a members-API handler may use; built once in app.ts. */
export interface RouteContext {
  db: Kysely<ConsoleDatabase>;
  sessions: SessionStore;
  metrics: ConsoleMetrics;
  logger: Logger;
  /** Invitation links start with it (CONSOLE_PUBLIC_ORIGIN). */
  publicOrigin: string;
  invitationTtlSeconds: number;
}

export type Registration = RouteRegistration<RouteContext>;
