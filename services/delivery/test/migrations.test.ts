import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { createDatabase, migrateToLatest, type Kysely } from '@preflight/db';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL } from '@preflight/testing';
import { migrations } from '../src/migrations/index.ts';
import * as init from '../src/migrations/0001_init.ts';
import { claimDue } from '../src/storage/deliveries.ts';
import type { DeliveryDatabase } from '../src/storage/schema.ts';
import { cleanup, isolation } from './harness.ts';

const iso = isolation();
const database = createDatabase<DeliveryDatabase>({ url: TEST_DATABASE_URL, schema: iso.schema, poolMax: 2, applicationName: 'delivery-migrations-test' });
const logger = createLogger('delivery-migrations-test', { level: 'silent' });

afterAll(async () => {
  await database.close();
  await cleanup(iso);
});

it('moves the bodies of deliveries made before 0002 into delivery_envelopes, one per event and type, and claims still send them', async () => {
  const db = database.db as Kysely<unknown>;
  await migrateToLatest(db, iso.schema, { '0001_init': init }, logger);
  const eventId = randomUUID();
  const body = JSON.stringify({ id: eventId, eventType: 'IssueCreated', occurredAt: '2026-11-23T00:00:00.000Z', data: { title: 'é' } });
  const org = randomUUID();
  const endpoints = [randomUUID(), randomUUID()];
  for (const endpointId of endpoints) {
    await database.pool.query(
      `insert into "${iso.schema}".deliveries (id, event_id, event_type, endpoint_id, org_id, url, envelope) values ($1, $2, 'IssueCreated', $3, $4, 'https://example.com/hook', $5)`,
      [randomUUID(), eventId, endpointId, org, body],
    );
  }

  await migrateToLatest(db, iso.schema, migrations, logger);

  const envelopes = await database.pool.query(`select event_id, event_type, body from "${iso.schema}".delivery_envelopes`);
  expect(envelopes.rows).toEqual([{ event_id: eventId, event_type: 'IssueCreated', body }]);
  const { rows } = await claimDue(database.db, { limit: 10, excludeEndpoints: [], room: new Map(), defaultRoom: 10, leaseMs: 60_000, token: randomUUID() });
  expect(rows.map((r) => [r.endpoint_id, r.body]).sort()).toEqual(endpoints.map((e) => [e, body]).sort());
});
