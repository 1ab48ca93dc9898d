import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@preflight/testing';
import { asAdmin, asKey, expectProblem, startHarness, type Harness } from './harness.ts';

describe('campaign directory read-through', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  it('asks the campaign service once, forwarding the trace, then answers from the directory', async () => {
    const org = randomUUID();
    const campaign = h.stub.add(org, { name: 'Summer sale', siteName: 'sale.example.com' });
    const traceId = 'ab'.repeat(16);
    const first = await h.call('GET', `/api/v1/campaigns/${campaign.id}/issues`, {
      as: asKey(org),
      headers: { traceparent: `00-${traceId}-${'cd'.repeat(8)}-01` },
    });
    expect(first.status).toBe(200);
    const asked = h.stub.requests.filter((r) => r.id === campaign.id);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const filed = await h.call('POST', `/api/v1/campaigns/${campaign.id}/issues`, { as: asKey(org), body: { title: 't', severity: 'Low', type: 'Bug' } });
    expect(filed.status).toBe(201);
    const detail = await h.call('GET', `/api/v1/issues/${filed.body.id}`, { as: asKey(org) });
    expect(detail.body).toMatchObject({ campaignId: campaign.id, campaignName: 'Summer sale', siteId: campaign.siteId, siteName: 'sale.example.com' });
    expect(h.stub.requests.filter((r) => r.id === campaign.id)).toHaveLength(1);
  });

  it("answers 404 for a campaign the campaign service does not know, and for another organisation's", async () => {
    const unknown = randomUUID();
    expectProblem(await h.call('GET', `/api/v1/campaigns/${unknown}/issues`, { as: asKey(randomUUID()) }), 404);
    expect(h.stub.requests.filter((r) => r.id === unknown)).toHaveLength(1);

    const theirs = h.stub.add(randomUUID());
    expectProblem(await h.call('GET', `/api/v1/campaigns/${theirs.id}/issues`, { as: asKey(randomUUID()) }), 404);
    // The directory learnt it all the same: the owner's request needs no second look-up.
    expect((await h.call('GET', `/api/v1/campaigns/${theirs.id}/issues`, { as: asKey(theirs.orgId) })).status).toBe(200);
    expect(h.stub.requests.filter((r) => r.id === theirs.id)).toHaveLength(1);
  });
});

describe('campaign service unreachable', () => {
  let h: Harness;
  beforeAll(async () => {
    // A port nobody listens on.
    h = await startHarness({ campaignUrl: `http://127.0.0.1:${await freePort()}` });
  });
  afterAll(() => h?.close());

  it('answers 503 naming the campaign service on a directory miss', async () => {
    const id = randomUUID();
    for (const [method, path, as] of [
      ['GET', `/api/v1/campaigns/${id}/issues`, asKey(randomUUID())],
      ['POST', `/api/v1/campaigns/${id}/issues`, asKey(randomUUID())],
      ['POST', `/admin/v1/campaigns/${id}/issues`, asAdmin],
    ] as const) {
      const body = method === 'POST' ? { title: 't', severity: 'Low', type: 'Bug' } : undefined;
      const problem = expectProblem(await h.call(method, path, { as, body }), 503);
      expect(problem.title).toBe('Service unavailable.');
      expect(problem.detail).toContain('campaign service');
    }
  });
});
