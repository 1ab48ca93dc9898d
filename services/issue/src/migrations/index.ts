import { outboxTraceparentMigration } from '@preflight/bus';
import type { MigrationSet } from '@preflight/db';
import * as init from './0001_init.ts';
import * as events from './0002_events.ts';
import * as issueCounts from './0004_issue_counts.ts';

/** Every migration of the issue schema, in order; listed statically so bundles keep them. */
export const migrations: MigrationSet = {
  '0001_init': init,
  '0002_events': events,
  '0003_outbox_traceparent': outboxTraceparentMigration,
  '0004_issue_counts': issueCounts,
};
