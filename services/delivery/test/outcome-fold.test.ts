import { describe, expect, it } from 'vitest';
import { foldSuccesses } from '../src/clients/webhook-client.ts';

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
});
