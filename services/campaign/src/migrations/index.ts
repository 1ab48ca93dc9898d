import { outboxTraceparentMigration } from '@preflight/bus';
import type { MigrationSet } from '@preflight/db';
import * as init from './0001_init.ts';
import * as eventsAndReadiness from './0002_events_and_readiness.ts';
import * as signoffAndTesters from './0003_signoff_and_testers.ts';
import * as issueStats from './0004_issue_stats.ts';

/** Every migration of the campaign schema, in order; listed statically so bundles keep them. */
export const campaignMigrations = {
  '0001_init': init,
  '0002_events_and_readiness': eventsAndReadiness,
  '0003_signoff_and_testers': signoffAndTesters,
  '0004_issue_stats': issueStats,
  '0005_outbox_traceparent': outboxTraceparentMigration,
} satisfies MigrationSet;
