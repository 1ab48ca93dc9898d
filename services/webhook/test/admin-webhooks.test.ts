import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateWebhookResponseSchema, PublicWebhookSchema } from '@preflight/contract';
import { NO_STATS } from './delivery-stand-in.ts';
import { PUBLIC_URL, asAdmin, asKey, expectProblem, startHarness, type Harness } from './harness.ts';

let h: Harness;
const orgId = randomUUID();
const key = asKey(orgId);

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const adminCreate = (org: string, body: unknown) => h.call('POST', `/admin/v1/organizations/${org}/webhooks`, { as: asAdmin, body });
const adminList = (org: string) => h.call('GET', `/admin/v1/organizations/${org}/webhooks`, { as: asAdmin });
const fail = (id: string) => h.call('POST', `/internal/v1/webhooks/${id}/delivery-outcome`, { body: { delivered: false } });

describe('POST /admin/v1/organizations/:orgId/webhooks', () => {
  it('creates an endpoint with source dashboard, answered like the public create', async () => {
    const res = await adminCreate(orgId, { url: PUBLIC_URL, events: ['CampaignLaunched', 'TesterInvited'], name: 'Ops channel' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['events', 'id', 'secret', 'url']);
    expect(CreateWebhookResponseSchema.parse(res.body)).toBeTruthy();
    expect(res.headers.get('location')).toBe(`/api/v1/webhooks/${res.body.id}`);
    expect(Buffer.from(res.body.secret, 'base64')).toHaveLength(32);

    // The organisation's API key sees it too, labelled as made on the settings page.
    const pub = await h.call('GET', '/api/v1/webhooks', { as: key });
    expect(pub.body.find((w: { id: string }) => w.id === res.body.id)).toMatchObject({ source: 'dashboard', name: 'Ops channel', isEnabled: true });
  });

  it('applies the public validation', async () => {
    const problem = expectProblem(await adminCreate(orgId, { url: 'nope', events: ['Bogus'], extra: 1 }), 422);
    expect(Object.keys(problem.errors).sort()).toEqual(['events.0', 'extra', 'url']);
    expectProblem(await adminCreate(orgId, { url: PUBLIC_URL, events: ['Bogus'] }), 422);
  });

  it('answers 404 for a malformed organisation id', async () => {
    expectProblem(await adminCreate('org-1', { url: PUBLIC_URL }), 404);
  });
});

describe('GET /admin/v1/organizations/:orgId/webhooks', () => {
  it('shows the public shape plus consecutiveFailures and disabledAt, newest first, one org only', async () => {
    const org = randomUUID();
    const viaApi = await h.call('POST', '/api/v1/webhooks', { as: asKey(org), body: { url: PUBLIC_URL } });
    const viaDashboard = await adminCreate(org, { url: PUBLIC_URL, name: 'Dash' });
    await adminCreate(randomUUID(), { url: PUBLIC_URL });
    const res = await adminList(org);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    const expectedKeys = [...Object.keys(PublicWebhookSchema.shape), 'consecutiveFailures', 'disabledAt', 'stats'].sort();
    for (const w of res.body) expect(Object.keys(w).sort()).toEqual(expectedKeys);
    expect(res.body[0]).toEqual({
      id: viaDashboard.body.id,
      name: 'Dash',
      url: PUBLIC_URL,
      events: [],
      isEnabled: true,
      source: 'dashboard',
      createdAt: expect.any(String),
      consecutiveFailures: 0,
      disabledAt: null,
      stats: NO_STATS,
    });
    expect(res.body[1]).toMatchObject({ id: viaApi.body.id, source: 'api', name: null });
    expect(JSON.stringify(res.body)).not.toContain(viaApi.body.secret);
    expect(JSON.stringify(res.body)).not.toContain(viaDashboard.body.secret);
  });

  it('answers [] for an organisation without endpoints', async () => {
    expect((await adminList(randomUUID())).body).toEqual([]);
  });
});

describe('POST /admin/v1/webhooks/:id/enable', () => {
  it('re-enables an auto-disabled endpoint and resets its failure count', async () => {
    const made = await adminCreate(orgId, { url: PUBLIC_URL });
    for (let i = 0; i < 5; i += 1) await fail(made.body.id);
    const disabled = (await adminList(orgId)).body.find((w: { id: string }) => w.id === made.body.id);
    expect(disabled).toMatchObject({ isEnabled: false, consecutiveFailures: 5 });
    expect(new Date(disabled.disabledAt).toISOString()).toBe(disabled.disabledAt);

    const res = await h.call('POST', `/admin/v1/webhooks/${made.body.id}/enable`, { as: asAdmin });
    expect(res.status).toBe(200);
    // The answer is the admin shape without the list's stats.
    const { stats: _stats, ...settings } = disabled;
    expect(res.body).toEqual({ ...settings, isEnabled: true, consecutiveFailures: 0, disabledAt: null });
    expect((await adminList(orgId)).body.find((w: { id: string }) => w.id === made.body.id)).toEqual({ ...res.body, stats: NO_STATS });
  });

  it('is idempotent on an enabled endpoint', async () => {
    const made = await adminCreate(orgId, { url: PUBLIC_URL });
    await fail(made.body.id);
    const res = await h.call('POST', `/admin/v1/webhooks/${made.body.id}/enable`, { as: asAdmin });
    expect(res.body).toMatchObject({ isEnabled: true, consecutiveFailures: 0, disabledAt: null });
  });

  it('answers 404 for an unknown and a malformed id', async () => {
    for (const id of [randomUUID(), 'x']) expectProblem(await h.call('POST', `/admin/v1/webhooks/${id}/enable`, { as: asAdmin }), 404);
  });
});

describe('callers', () => {
  it.each([
    ['POST', `/admin/v1/organizations/${orgId}/webhooks`],
    ['GET', `/admin/v1/organizations/${orgId}/webhooks`],
    ['POST', `/admin/v1/webhooks/${randomUUID()}/enable`],
  ])('%s %s answers 403 to an API key and 401 without a caller', async (method, path) => {
    const body = method === 'POST' ? { url: PUBLIC_URL } : undefined;
    expectProblem(await h.call(method, path, { as: key, body }), 403);
    expectProblem(await h.call(method, path, { body }), 401);
  });
});
