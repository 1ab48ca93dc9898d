import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { asAdmin, asKey, startHarness, type Harness } from './harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ poolMax: 10 });
});
afterAll(() => h?.close());

it('gives 50 parallel creates on one campaign exactly the numbers 1 to 50', async () => {
  const org = randomUUID();
  const campaign = h.stub.add(org);
  const key = asKey(org);
  const replies = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0
        ? h.call('POST', `/api/v1/campaigns/${campaign.id}/issues`, { as: key, body: { title: `Parallel ${i}`, severity: 'Low', type: 'Bug' } })
        : h.call('POST', `/admin/v1/campaigns/${campaign.id}/issues`, { as: asAdmin, body: { title: `Parallel ${i}`, severity: 'Low', type: 'Bug' } }),
    ),
  );
  expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
  const numbers = replies.map((r) => r.body.seqNumber as number).sort((a, b) => a - b);
  expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));

  const list = await h.call('GET', `/api/v1/campaigns/${campaign.id}/issues?pageSize=200`, { as: key });
  expect(list.body.total).toBe(50);
  expect(list.body.items.map((i: { seqNumber: number }) => i.seqNumber)).toEqual(numbers);
});
