import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats } from '@preflight/bus';
import { createLogger } from '@preflight/log';
import { eventually, TEST_NATS_URL } from '@preflight/testing';
import { describe, expect, it } from 'vitest';
import { FANOUT_CONSUMER, STORE_CHUNK } from '../src/fanout/fanout.ts';
import { issueCreated } from './events.ts';
import { databaseClient, deliverySuite, queryRows } from './harness.ts';

/**
 * What the fan-out holds in memory is bounded whatever the endpoint count and the stream's
 * backlog: at most DELIVERY_MAX_UNSTORED deliveries before their rows are stored, and at most
 * STORE_CHUNK rows made for one statement.
 */
const MAX_UNSTORED = 2;
// A whole attempt's time as in production: a thousand deliveries due at once to one receiver
// must not fail unsent, or time out, on a busy test machine.
const s = deliverySuite({ DELIVERY_MAX_UNSTORED: String(MAX_UNSTORED), DELIVERY_ATTEMPT_TIMEOUT_MS: '10000' });

/** Per attempt of the endpoint, oldest first: whether its event's own transaction wrote it (started before its row was stored). */
const writtenByFanout = async (endpointId: string) =>
  (
    await queryRows<{ same: boolean }>(
      `select a.xmin = i.xmin as same
       from "${s.iso.schema}".delivery_attempts a join "${s.iso.schema}".inbox i on i.event_id = a.event_id and i.consumer = 'delivery-fanout'
       where a.endpoint_id = $1 order by a.attempted_at`,
      [endpointId],
    )
  ).map((r) => r.same);

/** Events the fan-out's consumer has received and not acked yet, and those it has not received. */
async function consumerHolds(): Promise<{ unacked: number; waiting: number }> {
  const nc = await connectNats({ url: TEST_NATS_URL, name: 'memory-bounds-test', logger: createLogger('test', { level: 'silent' }) });
  try {
    const info = await (await jetstreamManager(nc)).consumers.info(s.iso.stream, FANOUT_CONSUMER);
    return { unacked: info.num_ack_pending, waiting: info.num_pending };
  } finally {
    await nc.close();
  }
}

describe('memory bounds of the fan-out', () => {
  it('starts no more than DELIVERY_MAX_UNSTORED deliveries before their rows are stored; the rest are stored first, and all are sent once', async () => {
    const org = randomUUID();
    const r = await s.receiver();
    const endpoint = s.stub.add(org, r.url);
    // The fan-out's writes wait for this lock: whatever starts early stays unstored meanwhile.
    const blocker = await databaseClient();
    try {
      await blocker.query('begin');
      await blocker.query(`lock table "${s.iso.schema}".deliveries in share mode`);
      for (let i = 0; i < 5; i += 1) await s.pub.publish(issueCreated(org), { orgId: org });
      await eventually(async () => expect(await consumerHolds()).toEqual({ unacked: 5, waiting: 0 }));
      await eventually(() => expect(r.requests).toHaveLength(MAX_UNSTORED));
      expect(await s.h.metric('webhook_deliveries_unstored')).toBe(MAX_UNSTORED);
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    await eventually(() => expect(r.requests).toHaveLength(5));
    await eventually(async () => expect(await writtenByFanout(endpoint.id)).toEqual([true, true, false, false, false]));
    expect(new Set(r.requests.map((x) => x.headers['webhook-id'])).size).toBe(5);
    expect(await s.h.metric('webhook_deliveries_unstored')).toBe(0);
  });

  it(`stores an event to more endpoints than one statement holds (${STORE_CHUNK}) in several, and delivers it to each once`, async () => {
    const org = randomUUID();
    const r = await s.receiver();
    const count = STORE_CHUNK + 50;
    for (let i = 0; i < count; i += 1) s.stub.add(org, `${r.url}&endpoint=${i}`);
    await s.pub.publish(issueCreated(org), { orgId: org });
    // At least once: each endpoint's path arrives (a retry after a lost answer could repeat one).
    await eventually(() => expect(new Set(r.requests.map((x) => x.path)).size).toBe(count), { timeoutMs: 60_000 });
  }, 90_000);
});
