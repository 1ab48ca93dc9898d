import type { MigrationSet } from '@preflight/db';
import * as init from './0001_init.ts';
import * as previousSecret from './0002_previous_secret.ts';

/** Every migration of the webhook schema, in order; listed statically so bundles keep them. */
export const migrations: MigrationSet = {
  '0001_init': init,
  '0002_previous_secret': previousSecret,
};
