import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  DeliveryOutcomeRequestSchema,
  DeliveryOutcomesAnswerSchema,
  DeliveryOutcomesRequestSchema,
  DeliveryOutcomeStateSchema,
  InternalEndpointDetailSchema,
  InternalEndpointListSchema,
} from '@preflight/contract';
import { PUBLIC_URL, asKey, startHarness, type Harness } from './harness.ts';

/**
 * Provider side of contracts/internal/delivery-to-webhook.json: the real internal routes answer
 * what the delivery service's client parses (libs/contract, internal.ts; docs/development-reference.md,
 * "Internal contracts").
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const ok = async <S extends z.ZodType>(reply: Promise<{ status: number; body: any }>, schema: S) => {
  const res = await reply;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return schema.parse(res.body);
};

describe('the webhook service answers what the delivery service parses', () => {
  it('endpoints list, endpoint detail, webhook lookup, one and batched delivery outcomes', async () => {
    const org = randomUUID();
    const created = await h.call('POST', '/api/v1/webhooks', { as: asKey(org), body: { url: PUBLIC_URL } });
    expect(created.status).toBe(201);
    const id: string = created.body.id;

    const list = await ok(h.call('GET', `/internal/v1/orgs/${org}/endpoints?eventType=IssueCreated`), InternalEndpointListSchema);
    expect(list.map((e) => e.id)).toEqual([id]);
    expect(await ok(h.call('GET', `/internal/v1/webhooks/${id}/endpoint`), InternalEndpointDetailSchema)).toMatchObject({ id, orgId: org, isEnabled: true });
    expect((await h.call('GET', `/internal/v1/webhooks/${id}`)).status).toBe(200);

    const one = DeliveryOutcomeRequestSchema.parse({ delivered: false });
    await ok(h.call('POST', `/internal/v1/webhooks/${id}/delivery-outcome`, { body: one }), DeliveryOutcomeStateSchema);
    const batch = DeliveryOutcomesRequestSchema.parse({ outcomes: [{ webhookId: id, delivered: true }, { webhookId: randomUUID(), delivered: false }] });
    const { results } = await ok(h.call('POST', '/internal/v1/delivery-outcomes', { body: batch }), DeliveryOutcomesAnswerSchema);
    expect(results.map((r) => r.state === null)).toEqual([false, true]);
  });
});
