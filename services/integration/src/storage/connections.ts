import type { EmittedEventType, IssueSeverity } from '@preflight/contract';
import { sql, type Kysely, type Selectable, type Transaction } from '@preflight/db';
import type { SealedSecret } from '@preflight/secret-box';
import type { Statement } from './statement.ts';
import type { ConnectionKind } from '../providers/provider.ts';
import type { Camel, ConnectionStatus, ConnectionsTable, IntegrationDatabase } from './schema.ts';

export type ConnectionRow = Camel<Selectable<ConnectionsTable>>;

/** Every column of a connection, camelCase. */
export const CONNECTION_COLUMNS = [
  'id',
  'org_id as orgId',
  'kind',
  'name',
  'config',
  'credentials_key_id as credentialsKeyId',
  'credentials_iv as credentialsIv',
  'credentials_ciphertext as credentialsCiphertext',
  'credentials_tag as credentialsTag',
  'inbound_key_id as inboundKeyId',
  'inbound_iv as inboundIv',
  'inbound_ciphertext as inboundCiphertext',
  'inbound_tag as inboundTag',
  'campaign_ids as campaignIds',
  'events',
  'min_severity as minSeverity',
  'paused',
  'status',
  'last_error as lastError',
  'last_success_at as lastSuccessAt',
  'created_at as createdAt',
  'updated_at as updatedAt',
  'deleted_at as deletedAt',
] as const;

export interface NewConnection {
  id: string;
  orgId: string;
  kind: ConnectionKind;
  name: string;
  config: Record<string, unknown>;
  credentials: SealedSecret;
  inbound: SealedSecret | null;
  campaignIds: string[] | null;
  events: EmittedEventType[];
  minSeverity: IssueSeverity | null;
}

export interface ConnectionChange {
  name?: string;
  config?: Record<string, unknown>;
  credentials?: SealedSecret;
  campaignIds?: string[] | null;
  events?: EmittedEventType[];
  minSeverity?: IssueSeverity | null;
  paused?: boolean;
}

const credentialColumns = (s: SealedSecret) => ({ credentials_key_id: s.keyId, credentials_iv: s.iv, credentials_ciphertext: s.ciphertext, credentials_tag: s.tag });
const inboundColumns = (s: SealedSecret | null) => ({ inbound_key_id: s?.keyId ?? null, inbound_iv: s?.iv ?? null, inbound_ciphertext: s?.ciphertext ?? null, inbound_tag: s?.tag ?? null });

export const credentialsOf = (row: ConnectionRow): SealedSecret => ({
  keyId: row.credentialsKeyId,
  iv: row.credentialsIv,
  ciphertext: row.credentialsCiphertext,
  tag: row.credentialsTag,
});

export const inboundSecretOf = (row: ConnectionRow): SealedSecret | null =>
  row.inboundKeyId && row.inboundIv && row.inboundCiphertext && row.inboundTag
    ? { keyId: row.inboundKeyId, iv: row.inboundIv, ciphertext: row.inboundCiphertext, tag: row.inboundTag }
    : null;

export async function insertConnection(db: Kysely<IntegrationDatabase>, c: NewConnection): Promise<ConnectionRow> {
  return db
    .insertInto('connections')
    .values({
      id: c.id,
      org_id: c.orgId,
      kind: c.kind,
      name: c.name,
      config: JSON.stringify(c.config),
      ...credentialColumns(c.credentials),
      ...inboundColumns(c.inbound),
      campaign_ids: c.campaignIds,
      events: c.events,
      min_severity: c.minSeverity,
    })
    .returning(CONNECTION_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Newest first; deleted connections are gone. */
export async function listConnections(db: Kysely<IntegrationDatabase>, orgId: string): Promise<ConnectionRow[]> {
  return db.selectFrom('connections').select(CONNECTION_COLUMNS).where('org_id', '=', orgId).where('deleted_at', 'is', null).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** A connection that is not deleted; undefined too when it is outside `orgScope` (a console member's organisation). */
export async function findConnection(db: Kysely<IntegrationDatabase>, id: string, orgScope?: string): Promise<ConnectionRow | undefined> {
  return db
    .selectFrom('connections')
    .select(CONNECTION_COLUMNS)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .$if(orgScope !== undefined, (qb) => qb.where('org_id', '=', orgScope!))
    .executeTakeFirst();
}

/** These connections as they are now, deleted ones included (the worker's rows of claimed jobs). */
export async function connectionsWithIds(db: Kysely<IntegrationDatabase>, ids: string[]): Promise<ConnectionRow[]> {
  return db.selectFrom('connections').select(CONNECTION_COLUMNS).where('id', 'in', ids).execute();
}

/**
 * Applies a change. New credentials clear `needs-attention` (the provider is asked again) and
 * the jobs that waited for them become due at once.
 */
export async function updateConnection(db: Kysely<IntegrationDatabase>, id: string, change: ConnectionChange): Promise<ConnectionRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('connections')
      .set({
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(change.config !== undefined ? { config: JSON.stringify(change.config) } : {}),
        ...(change.credentials ? credentialColumns(change.credentials) : {}),
        ...(change.credentials ? { status: 'active' as const, last_error: null } : {}),
        ...(change.campaignIds !== undefined ? { campaign_ids: change.campaignIds } : {}),
        ...(change.events !== undefined ? { events: change.events } : {}),
        ...(change.minSeverity !== undefined ? { min_severity: change.minSeverity } : {}),
        ...(change.paused !== undefined ? { paused: change.paused } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returning(CONNECTION_COLUMNS)
      .executeTakeFirst();
    if (row && (change.credentials || change.config)) {
      await trx.updateTable('jobs').set({ due_at: sql<Date>`now()` }).where('connection_id', '=', id).where('state', '=', 'pending').execute();
    }
    return row;
  });
}

/** A tracker's new inbound secret; the old one stops opening hooks at once. */
export async function replaceInboundSecret(db: Kysely<IntegrationDatabase>, id: string, sealed: SealedSecret): Promise<void> {
  await db.updateTable('connections').set({ ...inboundColumns(sealed), updated_at: sql<Date>`now()` }).where('id', '=', id).where('deleted_at', 'is', null).execute();
}

/** Deletes a connection (in `orgScope`): nothing more is sent for it (its waiting jobs are cancelled with it). */
export async function deleteConnection(db: Kysely<IntegrationDatabase>, id: string, orgScope?: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('connections')
      .set({ deleted_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .$if(orgScope !== undefined, (qb) => qb.where('org_id', '=', orgScope!))
      .returning('id')
      .executeTakeFirst();
    if (!row) return false;
    await trx.updateTable('jobs').set({ state: 'cancelled', finished_at: sql<Date>`now()`, lease_until: null }).where('connection_id', '=', id).where('state', 'in', ['pending', 'running']).execute();
    return true;
  });
}

export interface HealthChange {
  connectionId: string;
  status: ConnectionStatus;
  error: string | null;
}

/**
 * The update of several connections' health (a part of the worker's results statement,
 * storage/try-results.ts); as recordConnectionHealth, a success clears the error.
 */
export function connectionHealthStatement(changes: readonly HealthChange[]): Statement {
  const rows = changes.map((c) => sql`(${c.connectionId}::uuid, ${c.status}, ${c.error}::text)`);
  return sql`
    update connections c set
      status = h.status,
      last_error = h.error,
      last_success_at = case when h.status = 'active' and h.error is null then now() else c.last_success_at end
    from (values ${sql.join(rows)}) as h(id, status, error)
    where c.id = h.id and c.deleted_at is null`;
}

/** The connection's health after a call: a success clears the error. */
export async function recordConnectionHealth(db: Kysely<IntegrationDatabase> | Transaction<IntegrationDatabase>, id: string, health: { status: ConnectionStatus; error: string | null }): Promise<void> {
  await db
    .updateTable('connections')
    .set(health.status === 'active' && health.error === null ? { status: 'active', last_error: null, last_success_at: sql<Date>`now()` } : { status: health.status, last_error: health.error })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
}

/** What the consumer needs of a connection to decide which jobs an event makes for it. */
export type LiveConnection = Pick<ConnectionRow, 'id' | 'orgId' | 'kind' | 'campaignIds' | 'events' | 'minSeverity'>;

/**
 * The live, unpaused connections of these organisations, by organisation (one query for a
 * batch of events); only the columns the routing needs, not the sealed credentials.
 */
export async function liveConnectionsOf(db: Kysely<IntegrationDatabase> | Transaction<IntegrationDatabase>, orgIds: string[]): Promise<Map<string, LiveConnection[]>> {
  const byOrg = new Map<string, LiveConnection[]>();
  if (orgIds.length === 0) return byOrg;
  const rows = await liveIn(db, orgIds).select(['id', 'org_id as orgId', 'kind', 'campaign_ids as campaignIds', 'events', 'min_severity as minSeverity']).execute();
  for (const row of rows) {
    const list = byOrg.get(row.orgId);
    if (list) list.push(row);
    else byOrg.set(row.orgId, [row]);
  }
  return byOrg;
}

/** Which of `orgIds` have a live connection (consumer/connected-orgs.ts). */
export async function liveOrgsAmong(db: Kysely<IntegrationDatabase>, orgIds: string[]): Promise<Set<string>> {
  const rows = await liveIn(db, orgIds).select('org_id').distinct().execute();
  return new Set(rows.map((r) => r.org_id));
}

/** The connections of `orgIds` that events reach: not deleted, not paused. */
function liveIn(db: Kysely<IntegrationDatabase> | Transaction<IntegrationDatabase>, orgIds: string[]) {
  return db.selectFrom('connections').where('org_id', 'in', orgIds).where('deleted_at', 'is', null).where('paused', '=', false);
}
