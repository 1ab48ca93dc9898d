import type { RouteRegistration } from '@preflight/service-kit';
import type { Kysely } from '@preflight/db';
import type { CampaignDirectory } from '../directory/campaign-directory.ts';
import type { IssueFiling } from '../storage/issue-filing.ts';
import type { EventTarget } from '@preflight/bus';
import type { IssueDatabase } from '../storage/schema.ts';

/** What a route handler may use; built once in app.ts. */
export interface RouteContext {
  db: Kysely<IssueDatabase>;
  directory: CampaignDirectory;
  /** Where the storage functions' outbox rows are addressed. */
  events: EventTarget;
  /** Files new issues (gathered per campaign into shared transactions). */
  filing: IssueFiling;
}

export type Registration = RouteRegistration<RouteContext>;
