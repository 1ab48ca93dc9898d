import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { createDatabase, migrateToLatest, type Database } from '@preflight/db';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, TEST_NATS_URL, dropSchemas, isolatedName } from '@preflight/testing';
import { connectNats, ensureStream, inboxMigration, outboxMigration } from '../src/index.ts';

export const logger = createLogger('bus-test', { level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** Tables the tests write through handlers, besides outbox and inbox. */
export interface TestDB {
  effects: { event_id: string; consumer: string; replica: string };
}

export interface Harness {
  schema: string;
  stream: string;
  /** The subject prefix of this file: `<prefix>.test.<name>`. */
  prefix: string;
  database: Database<TestDB>;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Messages in the stream right now. */
  streamMessages(): Promise<number>;
  close(): Promise<void>;
}

/** A schema with outbox, inbox and an `effects` table; a stream over `<prefix>.>`. */
export async function createHarness(label: string): Promise<Harness> {
  const schema = isolatedName(label);
  const stream = isolatedName(`${label}_stream`);
  const prefix = isolatedName(`${label}_subj`);
  const database = createDatabase<TestDB>({ url: TEST_DATABASE_URL, schema, poolMax: 8 });
  await migrateToLatest(database.db, schema, {
    '0001_outbox': outboxMigration,
    '0002_inbox': inboxMigration,
    '0003_effects': {
      up: async (db) => {
        await db.schema.createTable('effects').addColumn('event_id', 'text', (c) => c.notNull()).addColumn('consumer', 'text', (c) => c.notNull()).addColumn('replica', 'text', (c) => c.notNull()).execute();
      },
    },
  });
  const nc = await connectNats({ url: TEST_NATS_URL, name: label, logger });
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, { name: stream, subjects: [`${prefix}.>`], duplicateWindowMs: 60_000, maxAgeMs: 3_600_000 });
  return {
    schema,
    stream,
    prefix,
    database,
    nc,
    js: jetstream(nc),
    jsm,
    streamMessages: async () => (await jsm.streams.info(stream)).state.messages,
    async close() {
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
      await database.close();
      await dropSchemas([schema]);
    },
  };
}
