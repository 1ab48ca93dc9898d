import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, listenFor, migrateToLatest, type Kysely } from '@preflight/db';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, dropSchemas, eventually, isolatedName } from '@preflight/testing';
import { migrations } from '../src/migrations/index.ts';
import { insertConnection } from '../src/storage/connections.ts';
import { enqueueJobs, JOBS_CHANNEL } from '../src/storage/jobs.ts';
import type { IntegrationDatabase } from '../src/storage/schema.ts';
import { FOREIGN_NOTIFY_DELAY_MS, notifyRouter } from '../src/worker/job-worker.ts';

/**
 * Who claims new jobs first: the replica whose consumer queued them (its id is the NOTIFY's
 * payload) at once, every other replica a moment later, once for all the notifications of
 * that moment, for what the first could not take.
 */
const logger = createLogger('integration-wake-test', { level: 'silent' });

describe('the jobs NOTIFY', () => {
  const schema = isolatedName('integration_wake');
  const database = createDatabase<IntegrationDatabase>({ url: TEST_DATABASE_URL, schema, poolMax: 2, applicationName: 'integration-wake-test' });
  const db: Kysely<IntegrationDatabase> = database.db;
  const sealed = { keyId: 'k1', iv: Buffer.alloc(12), ciphertext: Buffer.alloc(16), tag: Buffer.alloc(16) };

  beforeAll(async () => {
    await migrateToLatest(db as Kysely<unknown>, schema, migrations, logger);
  });
  afterAll(async () => {
    await database.close();
    await dropSchemas([schema]);
  });

  it('names the replica that queued the jobs, and is sent at commit, not before', async () => {
    const connectionId = randomUUID();
    await insertConnection(db, { id: connectionId, orgId: randomUUID(), kind: 'slack', name: 'c', config: {}, credentials: sealed, inbound: null, campaignIds: null, events: ['IssueCreated'], minSeverity: null });
    const origin = `replica-${randomUUID()}`;
    const payloads: Array<string | undefined> = [];
    const listener = listenFor({ url: TEST_DATABASE_URL, channel: JOBS_CHANNEL, onNotify: (p) => payloads.push(p), logger, what: 'test' });
    try {
      // The listener's first call (no payload) says it is listening.
      await eventually(() => expect(payloads).toContain(undefined));
      const ours = () => payloads.filter((p) => p === origin);
      await db.transaction().execute(async (trx) => {
        await enqueueJobs(trx, [{ connectionId, issueId: null, action: 'announce', dedupeKey: randomUUID(), payload: {} }], origin);
        // A marker sent after the insert, in another session, arrives first: the jobs' NOTIFY waits for the commit.
        await db.selectNoFrom((eb) => eb.fn<string>('pg_notify', [eb.val(JOBS_CHANNEL), eb.val('marker')]).as('n')).execute();
        await eventually(() => expect(payloads).toContain('marker'));
        expect(ours()).toEqual([]);
      });
      await eventually(() => expect(ours()).toEqual([origin]));
    } finally {
      await listener.close();
    }
  });
});

describe('notifyRouter', () => {
  it('claims at once for its own jobs and those of no known origin, once a moment later for other replicas\' jobs', () => {
    vi.useFakeTimers();
    try {
      const claim = vi.fn();
      const router = notifyRouter('me', claim);
      router.onNotify('me');
      router.onNotify(undefined);
      router.onNotify('');
      expect(claim).toHaveBeenCalledTimes(3);

      router.onNotify('other');
      router.onNotify('another');
      expect(claim).toHaveBeenCalledTimes(3);
      vi.advanceTimersByTime(FOREIGN_NOTIFY_DELAY_MS);
      expect(claim).toHaveBeenCalledTimes(4);

      router.onNotify('other');
      router.close();
      vi.advanceTimersByTime(FOREIGN_NOTIFY_DELAY_MS);
      expect(claim).toHaveBeenCalledTimes(4);
    } finally {
      vi.useRealTimers();
    }
  });
});
