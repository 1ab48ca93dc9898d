import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { createDatabase, migrateToLatest, type Kysely } from '@preflight/db';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, dropSchemas, isolatedName } from '@preflight/testing';
import { migrations } from '../src/migrations/index.ts';
import * as init from '../src/migrations/0001_init.ts';
import * as narrow from '../src/migrations/0002_narrow_deliveries.ts';
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

it('0003 keeps only deliveries with something left to do, and drops the unread index on attempts', async () => {
  const schema = isolatedName('delivery_mig3');
  const other = createDatabase<DeliveryDatabase>({ url: TEST_DATABASE_URL, schema, poolMax: 2, applicationName: 'delivery-migrations-test' });
  try {
    const db = other.db as Kysely<unknown>;
    await migrateToLatest(db, schema, { '0001_init': init, '0002_narrow_deliveries': narrow }, logger);
    const rows: Array<[string, string | null]> = [
      ['pending', null],
      ['delivered', 'now()'],
      ['delivered', null],
      ['failed', 'now()'],
      ['cancelled', null],
    ];
    for (const [status, reported] of rows) {
      await other.pool.query(
        `insert into "${schema}".deliveries (id, event_id, event_type, endpoint_id, org_id, url, status, finished_at, outcome_reported_at)
         values ($1, $2, 'IssueCreated', $3, $3, 'https://example.com/hook', $4, case when $4 = 'pending' then null else now() end, ${reported ?? 'null'})`,
        [randomUUID(), randomUUID(), randomUUID(), status],
      );
    }
    await migrateToLatest(db, schema, migrations, logger);
    const left = await other.pool.query(`select status, outcome_reported_at is null as unreported from "${schema}".deliveries order by status`);
    expect(left.rows).toEqual([
      { status: 'delivered', unreported: true },
      { status: 'pending', unreported: true },
    ]);
    const { rows: indexes } = await other.pool.query(`select indexname from pg_indexes where schemaname = $1 and tablename = 'delivery_attempts' order by indexname`, [schema]);
    expect(indexes.map((r) => r.indexname)).toEqual(['delivery_attempts_endpoint', 'delivery_attempts_pkey']);
  } finally {
    await other.close();
    await dropSchemas([schema]);
  }
});
