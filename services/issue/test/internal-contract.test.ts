import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalIssueSchema, InternalStatusChangeRequestSchema } from '@preflight/contract';
import { asAdmin, startHarness, type Harness } from './harness.ts';

/**
 * Provider side of contracts/internal/integration-to-issue.json: the real internal routes answer
 * what the integration service's client parses, and take the body it sends (libs/contract,
 * internal.ts; docs/development-reference.md, "Internal contracts").
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('the issue service answers what the integration service parses', () => {
  it('GET /internal/v1/issues/:id and POST /internal/v1/issues/:id/status', async () => {
    const campaign = h.stub.add(randomUUID(), { name: 'Checkout revamp', siteName: 'shop.example.com' });
    const created = await h.call('POST', `/admin/v1/campaigns/${campaign.id}/issues`, {
      as: asAdmin,
      body: { title: 'Pay button dead', severity: 'High', type: 'Bug', pageUrl: 'https://shop.example.com/pay' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.id;

    const detail = await h.call('GET', `/internal/v1/issues/${id}`);
    expect(detail.status).toBe(200);
    expect(InternalIssueSchema.parse(detail.body)).toMatchObject({ id, status: 'New' });

    const change = InternalStatusChangeRequestSchema.parse({ to: 'Fixed', reason: 'Closed in the tracker', origin: `integration:${randomUUID()}` });
    const moved = await h.call('POST', `/internal/v1/issues/${id}/status`, { body: change });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(InternalIssueSchema.parse((await h.call('GET', `/internal/v1/issues/${id}`)).body).status).toBe('Fixed');
  });
});
