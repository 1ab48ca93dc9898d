import { randomUUID } from 'node:crypto';
import { createDatabase, migrateToLatest, sql, type Kysely } from '@preflight/db';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, dropSchemas, isolatedName, testTokens } from '@preflight/testing';
import { afterAll, beforeAll } from 'vitest';
import { createWebhookClient, type WebhookClient } from '../src/clients/webhook-client.ts';
import { migrations } from '../src/migrations/index.ts';
import { claimDue, type ClaimedDelivery } from '../src/storage/deliveries.ts';
import type { DeliveryDatabase, DeliveryTrigger } from '../src/storage/schema.ts';
import { startWebhookStub, type WebhookStub } from './harness.ts';

/**
 * For unit tests of the worker's parts: a migrated schema of their own (no service, no
 * NATS), deliveries stored as the fan-out or an operator would leave them, and leases taken
 * as a claim takes them.
 */

export const silentLogger = createLogger('delivery-worker-test', { level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export interface WorkerDatabase {
  db: Kysely<DeliveryDatabase>;
  schema: string;
  close(): Promise<void>;
}

export async function workerDatabase(): Promise<WorkerDatabase> {
  const schema = isolatedName('delivery_worker');
  const database = createDatabase<DeliveryDatabase>({ url: TEST_DATABASE_URL, schema, poolMax: 4, applicationName: 'delivery-worker-test' });
  await migrateToLatest(database.db as Kysely<unknown>, schema, migrations, silentLogger);
  return {
    db: database.db,
    schema,
    async close() {
      await database.close();
      await dropSchemas([schema]);
    },
  };
}

/** A test file's schema, webhook stand-in and client of it (as the delivery service), made before its tests and closed after them. */
export function workerSuite() {
  const suite = { base: undefined as unknown as WorkerDatabase, stub: undefined as unknown as WebhookStub, webhooks: undefined as unknown as WebhookClient };
  beforeAll(async () => {
    suite.base = await workerDatabase();
    suite.stub = await startWebhookStub();
    suite.webhooks = createWebhookClient(suite.stub.url, testTokens('delivery'));
  });
  afterAll(async () => {
    await suite.webhooks?.close();
    await suite.stub?.close();
    await suite.base?.close();
  });
  return suite;
}

export interface StoredDelivery {
  id: string;
  eventId: string;
  body: string;
}

/** A pending delivery due in `dueInMs` (now by default) with its envelope. */
export async function storeDelivery(
  db: Kysely<DeliveryDatabase>,
  d: { endpointId: string; orgId?: string; url: string; trigger?: DeliveryTrigger; eventType?: string; dueInMs?: number },
): Promise<StoredDelivery> {
  const id = randomUUID();
  const eventId = randomUUID();
  const eventType = d.eventType ?? 'IssueCreated';
  const body = JSON.stringify({ id: eventId, eventType, occurredAt: new Date().toISOString(), data: {} });
  await db.insertInto('delivery_envelopes').values({ event_id: eventId, event_type: eventType, body }).execute();
  await db
    .insertInto('deliveries')
    .values({
      id,
      event_id: eventId,
      event_type: eventType,
      endpoint_id: d.endpointId,
      org_id: d.orgId ?? randomUUID(),
      url: d.url,
      trigger: d.trigger ?? 'event',
      next_attempt_at: sql<Date>`now() + ${d.dueInMs ?? 0} * interval '1 millisecond'`,
    })
    .execute();
  return { id, eventId, body };
}

/** Leases every due delivery, as a claim does, under a fresh token. */
export async function leaseDue(db: Kysely<DeliveryDatabase>): Promise<{ rows: ClaimedDelivery[]; token: string }> {
  const token = randomUUID();
  const { rows } = await claimDue(db, { limit: 100, excludeEndpoints: [], room: new Map(), defaultRoom: 100, leaseMs: 60_000, token });
  return { rows, token };
}

/** A row as a claim hands it over, of `endpointId`; not stored (for parts that only count it). */
export const heldRow = (endpointId: string): ClaimedDelivery => ({
  id: randomUUID(),
  event_id: randomUUID(),
  event_type: 'IssueCreated',
  endpoint_id: endpointId,
  org_id: randomUUID(),
  url: 'https://receiver.example/hook',
  body: '{}',
  attempt_count: 0,
  trigger: 'event',
  due_at: new Date(),
});

/** The stored row of a delivery (undefined once deleted: nothing left to do for it). */
export const deliveryRow = (db: Kysely<DeliveryDatabase>, id: string) => db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();

/** The logged attempts of a delivery, in order. */
export const attemptsOf = (db: Kysely<DeliveryDatabase>, deliveryId: string) =>
  db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').execute();
