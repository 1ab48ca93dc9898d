import { createHmac, randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Breakers } from '@preflight/breakers';
import { EndpointDirectory } from '../src/clients/endpoint-directory.ts';
import { notStartedError } from '../src/domain/unsent.ts';
import type { UnreportedOutcome } from '../src/storage/deliveries.ts';
import { attemptRunner, waiting, type AttemptRunner } from '../src/worker/attempt-runner.ts';
import { deliveryMetrics } from '../src/worker/metrics.ts';
import { startReceiver, type Receiver } from './harness.ts';
import { attemptsOf, deliveryRow, leaseDue, silentLogger, storeDelivery, workerSuite } from './worker-fixture.ts';

const TIMEOUT_MS = 1_000;

const suite = workerSuite();
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

/** What the runner told the scheduler and the outcome reporter, and the runner itself. */
function runnerUnderTest(opts: { parks?: boolean; failReports?: boolean } = {}) {
  const heard = { reported: [] as UnreportedOutcome[], unreported: 0, retries: 0 };
  const registry = new Registry();
  const breakers = new Breakers(
    { metricPrefix: 'delivery', subject: 'endpoint', whileOpen: 'no request', resetTimeoutMs: 300, volumeThreshold: 100, errorThresholdPercentage: 50, rollingWindowMs: 10_000 },
    silentLogger,
    registry,
  );
  const runner = attemptRunner({
    db: suite.base.db,
    endpoints: new EndpointDirectory(suite.webhooks, 60_000),
    webhooks: suite.webhooks,
    breakers,
    metrics: deliveryMetrics(registry, suite.base.db),
    logger: silentLogger,
    attemptTimeoutMs: TIMEOUT_MS,
    retrySchedule: [100, 300],
    keyHoldMs: 5_000,
    allowPrivate: true,
    reportOutcomes: async (finals) => {
      if (opts.failReports) throw new Error('webhook service down');
      heard.reported.push(...finals);
    },
    onUnreported: () => void (heard.unreported += 1),
    onRetryRecorded: () => void (heard.retries += 1),
    parks: () => opts.parks ?? false,
  });
  const close = async () => {
    await runner.close();
    breakers.shutdown();
  };
  return { runner, heard, close };
}

let current: { close(): Promise<void> } | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});
const started = (opts?: Parameters<typeof runnerUnderTest>[0]) => {
  const r = runnerUnderTest(opts);
  current = r;
  return r;
};

async function receiver(status = 200): Promise<Receiver> {
  const r = await startReceiver((_req, res) => {
    res.statusCode = status;
    res.end('answer');
  });
  receivers.push(r);
  return r;
}

/** One leased delivery of a new endpoint of the stub's, and the `Waiting` the scheduler would hand the runner. */
async function leasedDelivery(url: string, opts: { known?: boolean; trigger?: 'event' | 'test' } = {}) {
  const orgId = randomUUID();
  const endpoint = opts.known === false ? { id: randomUUID(), secret: '' } : suite.stub.add(orgId, url);
  const stored = await storeDelivery(suite.base.db, { endpointId: endpoint.id, orgId, url, trigger: opts.trigger ?? 'event' });
  const { rows, token } = await leaseDue(suite.base.db);
  const row = rows.find((r) => r.id === stored.id)!;
  return { endpoint, stored, w: waiting(row, token, Date.now()) };
}

/** Runs one attempt to its record (`run` settles once it is written); answers what `requestDone` heard. */
async function runOnce(runner: AttemptRunner, w: ReturnType<typeof waiting>): Promise<boolean | undefined> {
  let answered: boolean | undefined;
  await runner.run(w, (a) => (answered = a));
  return answered;
}

describe('attemptRunner', () => {
  it("posts the envelope signed with the endpoint's secret, first attempt carrying the delivery's id, and records it delivered and reported", async () => {
    const { runner, heard } = started();
    const r = await receiver();
    const { endpoint, stored, w } = await leasedDelivery(r.url);

    expect(await runOnce(runner, w)).toBe(true);

    expect(r.requests).toHaveLength(1);
    const [req] = r.requests;
    expect(req!.body.toString('utf8')).toBe(stored.body);
    expect(req!.headers['x-service-delivery']).toBe(stored.id);
    expect(req!.headers['webhook-id']).toBe(stored.eventId);
    expect(req!.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', Buffer.from(endpoint.secret, 'utf8')).update(req!.body).digest('hex')}`);
    const [attempt] = await attemptsOf(suite.base.db, stored.id);
    expect(attempt).toMatchObject({ attempt_id: stored.id, attempt: 1, outcome: 'delivered', status_code: 200, response_body: 'answer', trigger: 'event' });
    expect(heard.reported).toEqual([expect.objectContaining({ id: stored.id, endpoint_id: endpoint.id, status: 'delivered' })]);
    // Final and reported: nothing is left to do for the delivery.
    expect(await deliveryRow(suite.base.db, stored.id)).toBeUndefined();
  });

  it('records a failed attempt as a retry on the schedule, parked when the endpoint is stalled, and says a retry was recorded', async () => {
    const { runner, heard } = started({ parks: true });
    const r = await receiver(500);
    const { stored, w } = await leasedDelivery(r.url);

    expect(await runOnce(runner, w)).toBe(true);

    expect(await attemptsOf(suite.base.db, stored.id)).toEqual([expect.objectContaining({ attempt: 1, outcome: 'failed', status_code: 500 })]);
    expect(await deliveryRow(suite.base.db, stored.id)).toMatchObject({ status: 'parked', attempt_count: 1, lease_token: null });
    expect(heard).toMatchObject({ reported: [], retries: 1 });
  });

  it('cancels, without a request, a delivery whose endpoint is gone', async () => {
    const { runner, heard } = started();
    const r = await receiver();
    const { stored, w } = await leasedDelivery(r.url, { known: false });

    await runOnce(runner, w);

    expect(r.started).toBe(0);
    expect(await attemptsOf(suite.base.db, stored.id)).toEqual([expect.objectContaining({ outcome: 'cancelled', status_code: null, duration_ms: 0 })]);
    expect(await deliveryRow(suite.base.db, stored.id)).toBeUndefined();
    expect(heard.reported).toEqual([]);
  });

  it('fails unsent, without a request, an attempt that could not start within its time', async () => {
    const { runner } = started();
    const r = await receiver();
    const { stored, w } = await leasedDelivery(r.url);
    const late = { ...w, dueAt: Date.now() - 2 * TIMEOUT_MS };

    await runner.unsent(late, Date.now(), 4);

    expect(r.started).toBe(0);
    const [attempt] = await attemptsOf(suite.base.db, stored.id);
    expect(attempt).toMatchObject({ outcome: 'failed', error: notStartedError(4, TIMEOUT_MS) });
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(2 * TIMEOUT_MS);
    expect(await deliveryRow(suite.base.db, stored.id)).toMatchObject({ status: 'pending', attempt_count: 1 });
  });

  it('gives a delivery back without using an attempt', async () => {
    const { runner } = started();
    const { stored, w } = await leasedDelivery('http://127.0.0.1:9/never');
    const until = new Date(Date.now() + 60_000);

    await runner.giveBack(w, until);

    expect(await attemptsOf(suite.base.db, stored.id)).toEqual([]);
    const row = await deliveryRow(suite.base.db, stored.id);
    expect(row).toMatchObject({ status: 'pending', attempt_count: 0, lease_token: null });
    expect(Math.abs(row!.next_attempt_at.getTime() - until.getTime())).toBeLessThan(1_000);
  });

  it('records a final outcome unreported when reporting it fails, and says so', async () => {
    const { runner, heard } = started({ failReports: true });
    const r = await receiver();
    const { stored, w } = await leasedDelivery(r.url);

    await runOnce(runner, w);

    expect(heard.unreported).toBe(1);
    expect(await deliveryRow(suite.base.db, stored.id)).toMatchObject({ status: 'delivered', outcome_reported_at: null });
  });

  it("never reports a test send's outcome", async () => {
    const { runner, heard } = started();
    const r = await receiver();
    const { stored, w } = await leasedDelivery(r.url, { trigger: 'test' });

    await runOnce(runner, w);

    expect(await attemptsOf(suite.base.db, stored.id)).toEqual([expect.objectContaining({ outcome: 'delivered', trigger: 'test' })]);
    expect(heard.reported).toEqual([]);
    expect(await deliveryRow(suite.base.db, stored.id)).toBeUndefined();
  });
});
