import { sql, type Kysely } from '@preflight/db';
import { inboxMigration } from '@preflight/bus';

/**
 * Connections (an organisation's chat channels and trackers, credentials sealed), the jobs the
 * events and inbound hooks leave (the work queue the worker claims), the links between
 * Preflight issues and tracker issues, the activity log, the campaign names the messages show,
 * and the bus inbox.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await inboxMigration.up(db);

  await sql`
    create table connections (
      id uuid primary key,
      org_id uuid not null,
      kind text not null check (kind in ('slack', 'teams', 'github', 'jira', 'linear')),
      name text not null,
      config jsonb not null,
      -- AES-256-GCM sealed JSON of the credentials (@preflight/secret-box); never in clear.
      credentials_key_id text not null,
      credentials_iv bytea not null,
      credentials_ciphertext bytea not null,
      credentials_tag bytea not null,
      -- Trackers only: the secret inbound hooks are signed with, sealed the same way.
      inbound_key_id text,
      inbound_iv bytea,
      inbound_ciphertext bytea,
      inbound_tag bytea,
      -- null: every campaign of the organisation.
      campaign_ids uuid[],
      events text[] not null,
      min_severity text,
      paused boolean not null default false,
      status text not null default 'active' check (status in ('active', 'failing', 'needs-attention')),
      last_error text,
      last_success_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    )`.execute(db);
  await sql`create index connections_org on connections (org_id, created_at desc, id desc) where deleted_at is null`.execute(db);

  await sql`
    create table jobs (
      id uuid primary key,
      connection_id uuid not null references connections (id) on delete cascade,
      issue_id uuid,
      action text not null check (action in ('announce', 'create', 'sync-status', 'apply-inbound')),
      -- Makes a job once per cause: the event id (or the provider's delivery id) and the action.
      dedupe_key text not null,
      payload jsonb not null,
      state text not null default 'pending' check (state in ('pending', 'running', 'done', 'failed', 'cancelled')),
      attempts integer not null default 0,
      due_at timestamptz not null default now(),
      lease_until timestamptz,
      last_error text,
      created_at timestamptz not null default now(),
      finished_at timestamptz,
      unique (connection_id, dedupe_key)
    )`.execute(db);
  await sql`create index jobs_due on jobs (due_at) where state = 'pending'`.execute(db);
  await sql`create index jobs_leased on jobs (lease_until) where state = 'running'`.execute(db);
  await sql`create index jobs_issue on jobs (connection_id, issue_id) where state in ('pending', 'running')`.execute(db);
  await sql`create index jobs_finished on jobs (finished_at) where finished_at is not null`.execute(db);

  await sql`
    create table links (
      connection_id uuid not null references connections (id) on delete cascade,
      issue_id uuid not null,
      external_id text not null,
      external_key text not null,
      url text not null,
      -- The tracker state the service last saw or set: an inbound hook reporting it again is an echo.
      state text not null,
      synced_at timestamptz not null default now(),
      primary key (connection_id, issue_id),
      unique (connection_id, external_id)
    )`.execute(db);
  await sql`create index links_issue on links (issue_id)`.execute(db);

  await sql`
    create table activity (
      id bigint generated always as identity primary key,
      connection_id uuid not null references connections (id) on delete cascade,
      at timestamptz not null default now(),
      direction text not null check (direction in ('out', 'in')),
      issue_id uuid,
      action text not null,
      outcome text not null,
      status_code integer,
      error text,
      external_key text
    )`.execute(db);
  await sql`create index activity_connection on activity (connection_id, at desc, id desc)`.execute(db);
  await sql`create index activity_at on activity (at)`.execute(db);

  await sql`
    create table campaigns (
      campaign_id uuid primary key,
      org_id uuid not null,
      name text,
      updated_at timestamptz not null
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['campaigns', 'activity', 'links', 'jobs', 'connections']) await sql`drop table ${sql.table(table)}`.execute(db);
  await inboxMigration.down?.(db);
}
