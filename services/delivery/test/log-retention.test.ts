import { randomUUID } from 'node:crypto';
import { v7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { v7Floor } from '../src/storage/retention.ts';
import { cleanup, deliveryLog, isolation, queryRows, startDelivery, startWebhookStub, type DeliveryHarness, type WebhookStub } from './harness.ts';

const DAY = 86_400_000;
const iso = isolation();
let stub: WebhookStub;
let h: DeliveryHarness;

beforeAll(async () => {
  stub = await startWebhookStub();
  h = await startDelivery(iso, stub.url, { DELIVERY_LOG_RETENTION_DAYS: '30', DELIVERY_LOG_RETENTION_SWEEP_MS: '1000' });
});
afterAll(async () => {
  await h?.stop();
  await stub?.close();
  await cleanup(iso);
});

/** An attempt row made `daysAgo` days ago, with the time-ordered id the service gives it. */
async function attemptMadeAgo(endpointId: string, daysAgo: number): Promise<string> {
  const at = Date.now() - daysAgo * DAY;
  const id = v7({ msecs: at });
  await queryRows(
    `insert into "${iso.schema}".delivery_attempts (attempt_id, delivery_id, event_id, event_type, endpoint_id, attempt, attempted_at, status_code, duration_ms, response_body, error, outcome)
     values ($1, $2, $3, 'IssueCreated', $4, 1, $5, 204, 3, '', null, 'delivered')`,
    [id, v7({ msecs: at }), randomUUID(), endpointId, new Date(at)],
  );
  return id;
}

async function envelopeStoredAgo(daysAgo: number, openDelivery: boolean): Promise<string> {
  const eventId = randomUUID();
  await queryRows(`insert into "${iso.schema}".delivery_envelopes (event_id, event_type, body, created_at) values ($1, 'IssueCreated', '{}', $2)`, [eventId, new Date(Date.now() - daysAgo * DAY)]);
  if (openDelivery) {
    await queryRows(
      `insert into "${iso.schema}".deliveries (id, event_id, event_type, endpoint_id, org_id, url, next_attempt_at) values ($1, $2, 'IssueCreated', $3, $4, 'http://127.0.0.1:9/x', now() + interval '1 hour')`,
      [v7(), eventId, randomUUID(), randomUUID()],
    );
  }
  return eventId;
}

describe('v7Floor', () => {
  it('sorts above every v7 id of an earlier millisecond and below every one of its own', () => {
    const ms = Date.now();
    const floor = v7Floor(ms);
    for (let i = 0; i < 50; i += 1) {
      expect(v7({ msecs: ms - 1 }) < floor).toBe(true);
      expect(v7({ msecs: ms }) > floor).toBe(true);
    }
  });
});

describe('delivery log retention', () => {
  it('deletes attempts older than DELIVERY_LOG_RETENTION_DAYS and envelopes that old no open delivery needs, and keeps the rest', async () => {
    const endpoint = stub.add(randomUUID(), 'http://127.0.0.1:9/never');
    const old = [await attemptMadeAgo(endpoint.id, 45), await attemptMadeAgo(endpoint.id, 31), await attemptMadeAgo(endpoint.id, 30.01)];
    const kept = [await attemptMadeAgo(endpoint.id, 29.9), await attemptMadeAgo(endpoint.id, 1), await attemptMadeAgo(endpoint.id, 0)];
    const orphan = await envelopeStoredAgo(40, false);
    const retried = await envelopeStoredAgo(40, true);
    const recent = await envelopeStoredAgo(2, false);

    // The service's own sweep (every second here) finds them; the delivery log shows what is left.
    await eventually(async () => expect((await deliveryLog(h, endpoint.id)).length).toBe(kept.length), { timeoutMs: 10_000 });
    const attempts = await queryRows<{ attempt_id: string }>(`select attempt_id from "${iso.schema}".delivery_attempts where endpoint_id = $1 order by attempt_id`, [endpoint.id]);
    expect(attempts.map((r) => r.attempt_id)).toEqual([...kept].sort());
    await eventually(async () => {
      const envelopes = await queryRows<{ event_id: string }>(`select event_id from "${iso.schema}".delivery_envelopes where event_id = any($1::text[])`, [[orphan, retried, recent]]);
      expect(envelopes.map((r) => r.event_id).sort()).toEqual([retried, recent].sort());
    });
    expect(await h.metric('delivery_log_rows_deleted_total', { table: 'attempts' })).toBe(old.length);
    expect(await h.metric('delivery_log_rows_deleted_total', { table: 'envelopes' })).toBe(1);
  });
});
