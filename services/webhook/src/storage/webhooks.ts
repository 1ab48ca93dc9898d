import { sql, type Kysely } from '@preflight/db';
import type { SealedSecret } from '@preflight/secret-box';
import type { WebhookDatabase, WebhookSource } from './schema.ts';

/** Every column of a webhook, aliased in SQL so rows read like the domain with no mapping. */
const WEBHOOK_FIELDS = [
  'id',
  'org_id as orgId',
  'name',
  'url',
  'events',
  'source',
  'is_enabled as isEnabled',
  'consecutive_failures as consecutiveFailures',
  'disabled_at as disabledAt',
  'secret_key_id as secretKeyId',
  'secret_iv as secretIv',
  'secret_ciphertext as secretCiphertext',
  'secret_tag as secretTag',
  'previous_secret_key_id as previousSecretKeyId',
  'previous_secret_iv as previousSecretIv',
  'previous_secret_ciphertext as previousSecretCiphertext',
  'previous_secret_tag as previousSecretTag',
  'previous_secret_expires_at as previousSecretExpiresAt',
  'created_at as createdAt',
  'updated_at as updatedAt',
] as const;

export type WebhookRow = Awaited<ReturnType<typeof listWebhooks>>[number];

/** Consecutive failed deliveries after which an endpoint is disabled (spec 6.5 rule 5). */
export const AUTO_DISABLE_AFTER = 5;

export async function insertWebhook(
  db: Kysely<WebhookDatabase>,
  input: { id: string; orgId: string; name: string | null; url: string; events: string[]; source: WebhookSource; secret: SealedSecret },
): Promise<WebhookRow> {
  return db
    .insertInto('webhooks')
    .values({
      id: input.id,
      org_id: input.orgId,
      name: input.name,
      url: input.url,
      events: input.events,
      source: input.source,
      secret_key_id: input.secret.keyId,
      secret_iv: input.secret.iv,
      secret_ciphertext: input.secret.ciphertext,
      secret_tag: input.secret.tag,
    })
    .returning(WEBHOOK_FIELDS)
    .executeTakeFirstOrThrow();
}

/** An organisation's endpoints, newest first (id breaks ties within one clock tick). */
export async function listWebhooks(db: Kysely<WebhookDatabase>, orgId: string) {
  return db.selectFrom('webhooks').select(WEBHOOK_FIELDS).where('org_id', '=', orgId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** The organisation an endpoint belongs to and whether it is enabled; undefined when there is no such endpoint. */
export async function webhookState(db: Kysely<WebhookDatabase>, id: string): Promise<{ orgId: string; isEnabled: boolean } | undefined> {
  return db.selectFrom('webhooks').select(['org_id as orgId', 'is_enabled as isEnabled']).where('id', '=', id).executeTakeFirst();
}

/** True when a row was removed; the org condition makes another organisation's id a miss. */
export async function deleteWebhook(db: Kysely<WebhookDatabase>, id: string, orgId: string): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** A row as the delivery service's reads need it: `previousLive` tells whether its previous secret is still in its grace period. */
export type EndpointRow = WebhookRow & { previousLive: boolean };

/** Every endpoint, each with `previousLive` judged by the database clock (the one that stamped the expiry at rotation). */
export const selectEndpoint = (db: Kysely<WebhookDatabase>) =>
  db.selectFrom('webhooks').select(WEBHOOK_FIELDS).select(sql<boolean>`coalesce(previous_secret_expires_at > now(), false)`.as('previousLive'));

/** One endpoint whatever its state or filter; undefined when there is no such endpoint. */
export async function endpointById(db: Kysely<WebhookDatabase>, id: string): Promise<EndpointRow | undefined> {
  return selectEndpoint(db).where('id', '=', id).executeTakeFirst();
}

/** Enabled endpoints of an organisation that receive `eventType` (an empty filter receives everything). */
export async function endpointsFor(db: Kysely<WebhookDatabase>, orgId: string, eventType: string): Promise<EndpointRow[]> {
  return selectEndpoint(db)
    .where('org_id', '=', orgId)
    .where('is_enabled', '=', true)
    .where(sql<boolean>`(cardinality(events) = 0 or ${eventType} = any(events))`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The row's current secret as it is sealed. */
export const sealedSecret = (row: WebhookRow): SealedSecret => ({ keyId: row.secretKeyId, iv: row.secretIv, ciphertext: row.secretCiphertext, tag: row.secretTag });

/** The row's previous secret as it is sealed, whether or not it has expired; null when it has none. */
export function sealedPreviousSecret(row: WebhookRow): SealedSecret | null {
  const { previousSecretKeyId: keyId, previousSecretIv: iv, previousSecretCiphertext: ciphertext, previousSecretTag: tag } = row;
  return keyId !== null && iv !== null && ciphertext !== null && tag !== null ? { keyId, iv, ciphertext, tag } : null;
}

/**
 * Locks an endpoint's row until the transaction ends (a rotation reads the secret it replaces);
 * undefined when there is none, or none in `orgScope` (a console member's organisation).
 */
export async function lockWebhook(trx: Kysely<WebhookDatabase>, id: string, orgScope?: string): Promise<WebhookRow | undefined> {
  return trx
    .selectFrom('webhooks')
    .select(WEBHOOK_FIELDS)
    .where('id', '=', id)
    .$if(orgScope !== undefined, (qb) => qb.where('org_id', '=', orgScope!))
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Stores a rotation: `secret` becomes current, `previous` (null: none kept) stays usable for
 * `graceHours` from now. Answers when the previous secret stops being used.
 */
export async function replaceSecret(
  trx: Kysely<WebhookDatabase>,
  id: string,
  input: { secret: SealedSecret; previous: SealedSecret | null; graceHours: number },
): Promise<Date> {
  const { secret, previous, graceHours } = input;
  const row = await trx
    .updateTable('webhooks')
    .set({
      secret_key_id: secret.keyId,
      secret_iv: secret.iv,
      secret_ciphertext: secret.ciphertext,
      secret_tag: secret.tag,
      previous_secret_key_id: previous?.keyId ?? null,
      previous_secret_iv: previous?.iv ?? null,
      previous_secret_ciphertext: previous?.ciphertext ?? null,
      previous_secret_tag: previous?.tag ?? null,
      previous_secret_expires_at: sql<Date>`now() + make_interval(hours => ${graceHours}::integer)`,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .returning('previous_secret_expires_at')
    .executeTakeFirstOrThrow();
  return row.previous_secret_expires_at!;
}

/** Operator (or member) re-enable: enabled, failure count reset, disabledAt cleared; undefined when there is no such endpoint in `orgScope`. */
export async function enableWebhook(db: Kysely<WebhookDatabase>, id: string, orgScope?: string): Promise<WebhookRow | undefined> {
  return db
    .updateTable('webhooks')
    .set({ is_enabled: true, consecutive_failures: 0, disabled_at: null, updated_at: sql`now()` })
    .where('id', '=', id)
    .$if(orgScope !== undefined, (qb) => qb.where('org_id', '=', orgScope!))
    .returning(WEBHOOK_FIELDS)
    .executeTakeFirst();
}

/**
 * Records one delivery's outcome in a single UPDATE (its row lock serialises concurrent
 * outcomes; every right-hand side reads the row as it was before this statement): a success
 * resets the failure count, a failure increments it, and the failure that reaches
 * AUTO_DISABLE_AFTER disables the endpoint and stamps disabledAt. Later failures keep counting
 * but leave the first disabledAt; a success never re-enables (only the operator does).
 */
export async function recordDeliveryOutcome(
  db: Kysely<WebhookDatabase>,
  id: string,
  delivered: boolean,
): Promise<EndpointState | undefined> {
  const reachesLimit = sql<boolean>`(not ${delivered} and consecutive_failures + 1 >= ${AUTO_DISABLE_AFTER})`;
  return db
    .updateTable('webhooks')
    .set({
      consecutive_failures: sql<number>`case when ${delivered} then 0 else consecutive_failures + 1 end`,
      is_enabled: sql<boolean>`case when ${reachesLimit} then false else is_enabled end`,
      disabled_at: sql<Date | null>`case when ${reachesLimit} and is_enabled then now() else disabled_at end`,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .returning(['is_enabled as isEnabled', 'consecutive_failures as consecutiveFailures'])
    .executeTakeFirst();
}

/** An endpoint's state after an outcome. */
export interface EndpointState {
  isEnabled: boolean;
  consecutiveFailures: number;
}

/**
 * Records successes only (the common report: endpoints that keep delivering) with one
 * statement and no transaction: a success sets the count to 0 and changes nothing else, so
 * only endpoints with failures are written, and nothing needs to stay locked. A concurrent
 * failure report is ordered by the row lock as before (the update waits for it and then
 * resets what it committed). Answers each endpoint's state, undefined for an unknown one.
 */
export async function recordSuccesses(db: Kysely<WebhookDatabase>, ids: readonly string[]): Promise<Array<EndpointState | undefined>> {
  if (ids.length === 0) return [];
  const { rows } = await sql<{ id: string; isEnabled: boolean }>`
    with reset as (
      update webhooks set consecutive_failures = 0, updated_at = now()
      where id = any(${[...ids]}::uuid[]) and consecutive_failures > 0
      returning id)
    select id, is_enabled as "isEnabled" from webhooks where id = any(${[...ids]}::uuid[])`.execute(db);
  const state = new Map(rows.map((r) => [r.id, { isEnabled: r.isEnabled, consecutiveFailures: 0 }]));
  return ids.map((id) => state.get(id));
}

/**
 * Records many outcomes, in the order given, with exactly the rules of `recordDeliveryOutcome`
 * applied one after the other, but with two statements at most: the endpoints' rows are locked
 * (in id order, so concurrent batches cannot deadlock), the outcomes are folded in memory and
 * each endpoint whose state moved is updated once. Answers the state after each outcome, undefined for an
 * unknown endpoint. Run it in a transaction (the locks must last until the update).
 */
export async function recordDeliveryOutcomes(
  trx: Kysely<WebhookDatabase>,
  outcomes: ReadonlyArray<{ id: string; delivered: boolean }>,
): Promise<Array<EndpointState | undefined>> {
  if (outcomes.length === 0) return [];
  const ids = [...new Set(outcomes.map((o) => o.id))].sort();
  const rows = await trx
    .selectFrom('webhooks')
    .select(['id', 'is_enabled as isEnabled', 'consecutive_failures as consecutiveFailures'])
    .where('id', 'in', ids)
    .orderBy('id')
    .forUpdate()
    .execute();
  const state = new Map(rows.map((r) => [r.id, { isEnabled: r.isEnabled, consecutiveFailures: r.consecutiveFailures, disable: false, was: r.consecutiveFailures }]));
  const answers = outcomes.map((o) => {
    const s = state.get(o.id);
    if (!s) return undefined;
    if (o.delivered) s.consecutiveFailures = 0;
    else {
      s.consecutiveFailures += 1;
      if (s.consecutiveFailures >= AUTO_DISABLE_AFTER && s.isEnabled) {
        s.isEnabled = false;
        s.disable = true;
      }
    }
    return { isEnabled: s.isEnabled, consecutiveFailures: s.consecutiveFailures };
  });
  // Only endpoints whose state moved are written: in the steady state (successes on an
  // endpoint without failures) a report is one locking read, and no new row versions.
  const changed = [...state].filter(([, s]) => s.disable || s.consecutiveFailures !== s.was);
  if (changed.length > 0) {
    const values = sql.join(changed.map(([id, s]) => sql`(${id}::uuid, ${s.isEnabled}::boolean, ${s.consecutiveFailures}::integer, ${s.disable}::boolean)`));
    await sql`
      update webhooks w
      set is_enabled = v.is_enabled,
          consecutive_failures = v.consecutive_failures,
          disabled_at = case when v.disable then now() else w.disabled_at end,
          updated_at = now()
      from (values ${values}) as v (id, is_enabled, consecutive_failures, disable)
      where w.id = v.id`.execute(trx);
  }
  return answers;
}
