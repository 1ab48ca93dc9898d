import { sql, type Kysely, type Selectable } from '@preflight/db';
import type { ConnectionKind, ExternalIssue } from '../providers/provider.ts';
import type { Camel, IntegrationDatabase, LinksTable } from './schema.ts';

export type LinkRow = Camel<Selectable<LinksTable>>;

const LINK_COLUMNS = ['connection_id as connectionId', 'issue_id as issueId', 'external_id as externalId', 'external_key as externalKey', 'url', 'state', 'synced_at as syncedAt'] as const;

/** A link with the kind of its connection (linksOfIssue). */
export type IssueLinkRow = Pick<LinkRow, 'connectionId' | 'externalKey' | 'url' | 'syncedAt'> & { kind: ConnectionKind };

export const externalIssueOf = (row: LinkRow): ExternalIssue => ({ externalId: row.externalId, externalKey: row.externalKey, url: row.url, state: row.state });

export async function findLink(db: Kysely<IntegrationDatabase>, connectionId: string, issueId: string): Promise<LinkRow | undefined> {
  return db.selectFrom('links').select(LINK_COLUMNS).where('connection_id', '=', connectionId).where('issue_id', '=', issueId).executeTakeFirst();
}

export async function findLinkByExternalId(db: Kysely<IntegrationDatabase>, connectionId: string, externalId: string): Promise<LinkRow | undefined> {
  return db.selectFrom('links').select(LINK_COLUMNS).where('connection_id', '=', connectionId).where('external_id', '=', externalId).executeTakeFirst();
}

/** Records (or refreshes) the link after the tracker answered; `state` is what the tracker now says. */
export async function saveLink(db: Kysely<IntegrationDatabase>, connectionId: string, issueId: string, external: ExternalIssue): Promise<void> {
  await db
    .insertInto('links')
    .values({ connection_id: connectionId, issue_id: issueId, external_id: external.externalId, external_key: external.externalKey, url: external.url, state: external.state })
    .onConflict((oc) =>
      oc.columns(['connection_id', 'issue_id']).doUpdateSet({ external_id: external.externalId, external_key: external.externalKey, url: external.url, state: external.state, synced_at: sql<Date>`now()` }),
    )
    .execute();
}

export async function setLinkState(db: Kysely<IntegrationDatabase>, connectionId: string, issueId: string, state: string): Promise<void> {
  await db.updateTable('links').set({ state, synced_at: sql<Date>`now()` }).where('connection_id', '=', connectionId).where('issue_id', '=', issueId).execute();
}

/**
 * Every tracker issue a Preflight issue is linked to, through connections that still exist (of
 * `orgScope`, a console member's organisation, when set).
 */
export async function linksOfIssue(db: Kysely<IntegrationDatabase>, issueId: string, orgScope?: string): Promise<IssueLinkRow[]> {
  return db
    .selectFrom('links')
    .innerJoin('connections', 'connections.id', 'links.connection_id')
    .select(['links.connection_id as connectionId', 'connections.kind', 'links.external_key as externalKey', 'links.url', 'links.synced_at as syncedAt'])
    .where('links.issue_id', '=', issueId)
    .where('connections.deleted_at', 'is', null)
    .$if(orgScope !== undefined, (qb) => qb.where('connections.org_id', '=', orgScope!))
    .orderBy('links.synced_at')
    .execute();
}
