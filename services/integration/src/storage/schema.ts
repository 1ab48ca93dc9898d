import type { EmittedEventType, INTEGRATION_OUTCOMES, INTEGRATION_STATUSES, IssueSeverity } from '@preflight/contract';
import type { ColumnType, Generated } from '@preflight/db';
import type { ConnectionKind } from '../providers/provider.ts';

/** Table types of the integration schema (migrations/0001_init.ts). */

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
/** A row as storage returns it: every column camelCase (aliased in the SQL, so no per-row work). */
export type Camel<Row> = { [K in keyof Row as K extends string ? CamelCase<K> : K]: Row[K] };
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export type ConnectionStatus = (typeof INTEGRATION_STATUSES)[number];
/** What happened to one call or hook: `succeeded`, `skipped`, `retrying`, `failed`. */
export type ActivityOutcome = (typeof INTEGRATION_OUTCOMES)[number];
export type JobAction = 'announce' | 'create' | 'sync-status' | 'apply-inbound';
export type JobState = 'pending' | 'running' | 'done' | 'failed' | 'cancelled';

export interface ConnectionsTable {
  id: string;
  org_id: string;
  kind: ConnectionKind;
  name: string;
  config: ColumnType<Record<string, unknown>, string, string>;
  credentials_key_id: string;
  credentials_iv: Buffer;
  credentials_ciphertext: Buffer;
  credentials_tag: Buffer;
  inbound_key_id: string | null;
  inbound_iv: Buffer | null;
  inbound_ciphertext: Buffer | null;
  inbound_tag: Buffer | null;
  campaign_ids: string[] | null;
  events: EmittedEventType[];
  min_severity: IssueSeverity | null;
  paused: Defaulted<boolean>;
  status: Defaulted<ConnectionStatus>;
  last_error: Defaulted<string | null>;
  last_success_at: Defaulted<Date | null>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
  deleted_at: Defaulted<Date | null>;
}

export interface JobsTable {
  id: string;
  connection_id: string;
  issue_id: string | null;
  action: JobAction;
  dedupe_key: string;
  payload: ColumnType<Record<string, unknown>, string, string>;
  state: Defaulted<JobState>;
  attempts: Defaulted<number>;
  due_at: DefaultedTimestamp;
  lease_until: Defaulted<Date | null>;
  last_error: Defaulted<string | null>;
  created_at: DefaultedTimestamp;
  finished_at: Defaulted<Date | null>;
}

export interface LinksTable {
  connection_id: string;
  issue_id: string;
  external_id: string;
  external_key: string;
  url: string;
  state: string;
  synced_at: DefaultedTimestamp;
}

export interface ActivityTable {
  id: Generated<string>;
  connection_id: string;
  at: DefaultedTimestamp;
  direction: 'out' | 'in';
  issue_id: string | null;
  action: string;
  outcome: ActivityOutcome;
  status_code: number | null;
  error: string | null;
  external_key: string | null;
}

export interface CampaignsTable {
  campaign_id: string;
  org_id: string;
  name: string | null;
  updated_at: Date;
}

export interface IntegrationDatabase {
  connections: ConnectionsTable;
  jobs: JobsTable;
  links: LinksTable;
  activity: ActivityTable;
  campaigns: CampaignsTable;
}
