import type { MigrationSet } from '@preflight/db';
import * as init from './0001_init.ts';
import * as pendingByConnection from './0002_pending_by_connection.ts';

/** Every migration of the integration schema, in order; listed statically so bundles keep them. */
export const migrations: MigrationSet = {
  '0001_init': init,
  '0002_pending_by_connection': pendingByConnection,
};
