import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { deliveryMetrics } from '../src/worker/metrics.ts';
import { AUTO_DISABLE_AFTER, startOutcomeReporter } from '../src/worker/outcome-reporter.ts';
import { deliveryRow, silentLogger, storeDelivery, workerSuite } from './worker-fixture.ts';

const suite = workerSuite();

/** A reporter that polls only when woken (its poll is a minute), with what it told `onDisabled`. */
function reporterUnderTest() {
  const disabled: Array<[string, string]> = [];
  const metrics = deliveryMetrics(new Registry(), suite.base.db);
  const reporter = startOutcomeReporter({ db: suite.base.db, webhooks: suite.webhooks, metrics, logger: silentLogger, pollIntervalMs: 60_000, onDisabled: (orgId, endpointId) => disabled.push([orgId, endpointId]) });
  return { reporter, metrics, disabled };
}

/** A final delivery whose outcome is still to be reported, finished `agoMs` ago. */
async function finalUnreported(endpointId: string, orgId: string, status: 'delivered' | 'failed', agoMs: number): Promise<string> {
  const { id } = await storeDelivery(suite.base.db, { endpointId, orgId, url: 'http://127.0.0.1:9/hook', dueInMs: 3_600_000 });
  await suite.base.db
    .updateTable('deliveries')
    .set({ status, attempt_count: 1, finished_at: new Date(Date.now() - agoMs) })
    .where('id', '=', id)
    .execute();
  return id;
}

const autoDisabled = async (metrics: ReturnType<typeof deliveryMetrics>) => (await metrics.autoDisabled.get()).values[0]?.value ?? 0;

describe('startOutcomeReporter', () => {
  it('reports the outcomes left unreported, oldest first, once woken, and then forgets their deliveries', async () => {
    const { reporter } = reporterUnderTest();
    try {
      const orgId = randomUUID();
      const endpoint = suite.stub.add(orgId, 'http://127.0.0.1:9/hook');
      const ids = [await finalUnreported(endpoint.id, orgId, 'failed', 3_000), await finalUnreported(endpoint.id, orgId, 'failed', 2_000), await finalUnreported(endpoint.id, orgId, 'delivered', 1_000)];
      reporter.wake();

      await eventually(() => expect(suite.stub.outcomes.filter((o) => o.endpointId === endpoint.id)).toEqual([false, false, true].map((delivered) => ({ endpointId: endpoint.id, delivered }))));
      for (const id of ids) await eventually(async () => expect(await deliveryRow(suite.base.db, id)).toBeUndefined());
      expect(endpoint.consecutiveFailures).toBe(0);
    } finally {
      await reporter.stop();
    }
  });

  it('retries while the webhook service fails, and reports each outcome once it answers', async () => {
    const { reporter } = reporterUnderTest();
    try {
      const orgId = randomUUID();
      const endpoint = suite.stub.add(orgId, 'http://127.0.0.1:9/hook');
      suite.stub.failOutcomeCalls = 1;
      const id = await finalUnreported(endpoint.id, orgId, 'failed', 1_000);
      reporter.wake();

      await eventually(async () => expect(await deliveryRow(suite.base.db, id)).toBeUndefined(), { timeoutMs: 10_000 });
      expect(suite.stub.failOutcomeCalls).toBe(0);
      expect(suite.stub.outcomes.filter((o) => o.endpointId === endpoint.id)).toEqual([{ endpointId: endpoint.id, delivered: false }]);
    } finally {
      await reporter.stop();
    }
  });

  it('tells of every endpoint an outcome left disabled, and counts the failure that disabled it once', async () => {
    const { reporter, metrics, disabled } = reporterUnderTest();
    try {
      const orgId = randomUUID();
      const endpoint = suite.stub.add(orgId, 'http://127.0.0.1:9/hook');
      const gone = randomUUID();
      const failure = { id: randomUUID(), endpoint_id: endpoint.id, org_id: orgId, event_type: 'IssueCreated', status: 'failed' as const };

      await reporter.report(Array.from({ length: AUTO_DISABLE_AFTER + 1 }, () => failure));
      // A deleted endpoint's outcome is done with: nobody is told.
      await reporter.report([{ ...failure, endpoint_id: gone }]);

      expect(endpoint.isEnabled).toBe(false);
      expect(disabled).toEqual([
        [orgId, endpoint.id],
        [orgId, endpoint.id],
      ]);
      expect(await autoDisabled(metrics)).toBe(1);
    } finally {
      await reporter.stop();
    }
  });

  it('throws from report when the webhook service does not answer', async () => {
    const { reporter } = reporterUnderTest();
    try {
      suite.stub.down = true;
      await expect(reporter.report([{ id: randomUUID(), endpoint_id: randomUUID(), org_id: randomUUID(), event_type: 'IssueCreated', status: 'delivered' }])).rejects.toThrow();
    } finally {
      suite.stub.down = false;
      await reporter.stop();
    }
  });
});
