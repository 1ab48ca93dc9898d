import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { testTokens } from '@preflight/testing';
import { OUTCOMES_PER_CALL, createWebhookClient, foldSuccesses } from '../src/clients/webhook-client.ts';
import { startWebhookStub } from './harness.ts';

const S = (endpointId: string) => ({ endpointId, delivered: true });
const F = (endpointId: string) => ({ endpointId, delivered: false });

describe('delivery outcomes sent to the webhook service', () => {
  it("send one success per run of an endpoint's successes, and every failure in order", () => {
    const all = [S('a'), S('b'), S('a'), F('a'), S('a'), S('b'), S('a'), F('b'), F('b'), S('b')];
    const { outcomes, sentAs } = foldSuccesses(all);
    expect(outcomes).toEqual([S('a'), S('b'), F('a'), S('a'), F('b'), F('b'), S('b')]);
    // Each outcome answers the state of the one sent for it: a dropped success that of its run's first.
    expect(sentAs).toEqual([0, 1, 0, 2, 3, 1, 3, 4, 5, 6]);
  });

  it('apply to the failure count exactly as the outcomes one by one would', () => {
    // The webhook service's rule (recordDeliveryOutcomes): a success resets the count, a failure adds one.
    const apply = (outcomes: Array<{ endpointId: string; delivered: boolean }>) => {
      const count = new Map<string, number>();
      const after = outcomes.map((o) => {
        count.set(o.endpointId, o.delivered ? 0 : (count.get(o.endpointId) ?? 0) + 1);
        return count.get(o.endpointId);
      });
      return { count, after };
    };
    const ids = ['a', 'b', 'c'];
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let run = 0; run < 200; run++) {
      const all = Array.from({ length: 1 + Math.floor(random() * 40) }, () => ({ endpointId: ids[Math.floor(random() * 3)]!, delivered: random() < 0.7 }));
      const { outcomes, sentAs } = foldSuccesses(all);
      const one = apply(all);
      const folded = apply(outcomes);
      expect(folded.count).toEqual(one.count);
      expect(sentAs.map((i) => folded.after[i])).toEqual(one.after);
    }
  });

  it('go in calls of at most OUTCOMES_PER_CALL once folded, in order, however many a batch holds', async () => {
    const stub = await startWebhookStub();
    const client = createWebhookClient(stub.url, testTokens('delivery'));
    try {
      const [a, b, c] = [0, 1, 2].map(() => stub.add(randomUUID(), 'http://127.0.0.1:9/hook').id) as [string, string, string];
      // A fan-out batch of 32 events to 10 endpoints carries 320 outcomes; here 600 successes of
      // two endpoints (folded into 2), then 260 of an endpoint that alternates (none folded).
      const all = [...Array.from({ length: 600 }, (_, i) => S(i % 2 ? a : b)), ...Array.from({ length: 260 }, (_, i) => (i % 2 ? S(c) : F(c)))];
      const states = await client.reportOutcomes(all);
      expect(stub.calls.outcomes).toBe(Math.ceil(262 / OUTCOMES_PER_CALL));
      expect(stub.outcomes).toEqual(foldSuccesses(all).outcomes);
      expect(states).toHaveLength(all.length);
      expect(states.slice(0, 600).every((st) => st?.consecutiveFailures === 0)).toBe(true);
      expect(states.slice(600).map((st) => st?.consecutiveFailures)).toEqual(Array.from({ length: 260 }, (_, i) => (i % 2 ? 0 : 1)));
    } finally {
      await client.close();
      await stub.close();
    }
  });
});
