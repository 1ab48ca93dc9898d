import type { RouteRegistration } from '@preflight/service-kit';
import type { Breakers } from '@preflight/breakers';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { TargetChecker } from '@preflight/net';
import type { KeyRing } from '@preflight/secret-box';
import type { IssueClient } from '../clients/issue-client.ts';
import type { SafeFetch } from '../providers/provider.ts';
import type { IntegrationDatabase } from '../storage/schema.ts';
import type { ConnectionClients } from '../worker/connection-clients.ts';
import type { JobWorker } from '../worker/job-worker.ts';

/** What a route handler may use; built once in app.ts. */
export interface RouteContext {
  db: Kysely<IntegrationDatabase>;
  keys: KeyRing;
  logger: Logger;
  /** The address rules on the URLs a connection will call, when it is saved. */
  targets: TargetChecker;
  clients: ConnectionClients;
  breakers: Breakers;
  worker: Pick<JobWorker, 'kick'>;
  issues: Pick<IssueClient, 'issue'>;
  /** For the test call of POST …/test (the worker's calls use the same rules). */
  fetch: SafeFetch;
  /** `<PUBLIC_BASE_URL>/integrations/v1/hooks/<id>`. */
  inboundUrl(connectionId: string): string;
}

export type Registration = RouteRegistration<RouteContext>;
