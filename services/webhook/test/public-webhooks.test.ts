import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceAuthHeaders } from '@preflight/testing';
import { CreateWebhookResponseSchema, PublicWebhookSchema, RESERVED_EVENT_TYPES } from '@preflight/contract';
import { PUBLIC_URL, asAdmin, asKey, expectProblem, startHarness, type Harness } from './harness.ts';

let h: Harness;
const orgA = randomUUID();
const orgB = randomUUID();
const key = asKey(orgA, 'Release bot');
const otherKey = asKey(orgB);

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const create = (body: unknown, as = key) => h.call('POST', '/api/v1/webhooks', { as, body });

describe('POST /api/v1/webhooks', () => {
  it('creates an enabled endpoint with source api and shows its secret once', async () => {
    const res = await create({ url: ` ${PUBLIC_URL} `, events: ['IssueCreated', 'IssueClosed', 'IssueCreated'], name: ' Slack relay ' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['events', 'id', 'secret', 'url']);
    expect(CreateWebhookResponseSchema.parse(res.body)).toBeTruthy();
    expect(res.headers.get('location')).toBe(`/api/v1/webhooks/${res.body.id}`);
    expect(res.body).toMatchObject({ url: PUBLIC_URL, events: ['IssueCreated', 'IssueClosed'] });
    expect(res.body.secret).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(res.body.secret, 'base64').length).toBeGreaterThanOrEqual(32);

    const list = await h.call('GET', '/api/v1/webhooks', { as: key });
    const listed = list.body.find((w: { id: string }) => w.id === res.body.id);
    expect(Object.keys(listed).sort()).toEqual(Object.keys(PublicWebhookSchema.shape).sort());
    expect(PublicWebhookSchema.parse(listed)).toBeTruthy();
    expect(listed).toEqual({
      id: res.body.id,
      name: 'Slack relay',
      url: PUBLIC_URL,
      events: ['IssueCreated', 'IssueClosed'],
      isEnabled: true,
      source: 'api',
      createdAt: expect.any(String),
    });
    expect(new Date(listed.createdAt).toISOString()).toBe(listed.createdAt);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
  });

  it('stores the secret encrypted, never in clear', async () => {
    const res = await create({ url: PUBLIC_URL });
    const row = await h.db.selectFrom('webhooks').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(row.secret_key_id).toBe('k1');
    expect(row.secret_iv).toHaveLength(12);
    const stored = JSON.stringify(row) + row.secret_ciphertext.toString('utf8') + row.secret_ciphertext.toString('base64');
    expect(stored).not.toContain(res.body.secret);
    expect(row.secret_ciphertext.equals(Buffer.from(res.body.secret, 'utf8'))).toBe(false);
  });

  it('gives every endpoint its own secret', async () => {
    const one = await create({ url: PUBLIC_URL });
    const two = await create({ url: PUBLIC_URL });
    expect(one.body.secret).not.toBe(two.body.secret);
  });

  it.each([
    ['omitted', {}],
    ['null', { events: null }],
    ['empty', { events: [] }],
  ])('subscribes to every event when events is %s, shown as []', async (_label, extra) => {
    const res = await create({ url: PUBLIC_URL, ...extra });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual([]);
    const list = await h.call('GET', '/api/v1/webhooks', { as: key });
    expect(list.body.find((w: { id: string }) => w.id === res.body.id)).toMatchObject({ events: [], name: null });
  });

  it('accepts reserved event names', async () => {
    const res = await create({ url: PUBLIC_URL, events: [...RESERVED_EVENT_TYPES, 'IssueCreated'] });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual([...RESERVED_EVENT_TYPES, 'IssueCreated']);
  });

  it('names each unknown event by its position', async () => {
    const problem = expectProblem(await create({ url: PUBLIC_URL, events: ['IssueCreated', 'issueclosed', 'IssueDeleted'] }), 422);
    expect(Object.keys(problem.errors).sort()).toEqual(['events.1', 'events.2']);
    expect(problem.errors['events.1'][0]).toBe("'issueclosed' is not an event name; did you mean 'IssueClosed'?");
    expect(problem.errors['events.2'][0]).toContain("'IssueDeleted' is not an event name.");
  });

  it('reports the URL and the events together', async () => {
    const problem = expectProblem(await create({ url: 'http://10.0.0.5/hook', events: ['Nope'] }), 422);
    expect(Object.keys(problem.errors).sort()).toEqual(['events.0', 'url']);
  });

  it.each([
    ['url missing', { events: [] }, 'url'],
    ['url null', { url: null }, 'url'],
    ['url relative', { url: '/hooks' }, 'url'],
    ['url not http(s)', { url: 'ftp://93.184.215.14/x' }, 'url'],
    ['url javascript:', { url: 'javascript:alert(1)' }, 'url'],
    ['url too long', { url: `${PUBLIC_URL}?${'x'.repeat(2048)}` }, 'url'],
    ['url not a string', { url: 42 }, 'url'],
    ['events not an array', { url: PUBLIC_URL, events: 'IssueCreated' }, 'events'],
    ['an empty event name', { url: PUBLIC_URL, events: ['IssueCreated', ' '] }, 'events.1'],
    ['name empty', { url: PUBLIC_URL, name: '  ' }, 'name'],
    ['name too long', { url: PUBLIC_URL, name: 'n'.repeat(201) }, 'name'],
    ['an unknown property', { url: PUBLIC_URL, event: ['IssueCreated'] }, 'event'],
    ['a secret supplied by the caller', { url: PUBLIC_URL, secret: 'mine' }, 'secret'],
  ])('refuses %s with 422 naming the field', async (_label, body, field) => {
    const problem = expectProblem(await create(body), 422);
    expect(Object.keys(problem.errors)).toEqual([field]);
    expect(problem.errors[field][0]).toEqual(expect.any(String));
  });

  it('refuses credentials in the URL', async () => {
    const problem = expectProblem(await create({ url: 'https://user:pass@93.184.215.14/hook' }), 422);
    expect(problem.errors.url[0]).toContain('credentials');
    expect(JSON.stringify(problem)).not.toContain('pass@');
  });

  it('refuses a missing and a non-object body', async () => {
    expectProblem(await h.call('POST', '/api/v1/webhooks', { as: key }), 422);
    expectProblem(await create([PUBLIC_URL]), 422);
  });

  it('refuses other media types with 415', async () => {
    const res = await fetch(`${h.base}/api/v1/webhooks`, {
      method: 'POST',
      headers: { ...(await serviceAuthHeaders('webhook', { caller: key })), 'content-type': 'text/plain' },
      body: JSON.stringify({ url: PUBLIC_URL }),
    });
    expect(res.status).toBe(415);
  });
});

describe('GET /api/v1/webhooks', () => {
  it("lists only the caller's organisation, newest first", async () => {
    const fresh = asKey(randomUUID());
    const first = await create({ url: PUBLIC_URL, name: 'first' }, fresh);
    const second = await create({ url: PUBLIC_URL, name: 'second' }, fresh);
    const res = await h.call('GET', '/api/v1/webhooks', { as: fresh });
    expect(res.status).toBe(200);
    expect(res.body.map((w: { id: string }) => w.id)).toEqual([second.body.id, first.body.id]);
  });

  it('answers [] for an organisation without endpoints', async () => {
    const res = await h.call('GET', '/api/v1/webhooks', { as: asKey(randomUUID()) });
    expect(res.body).toEqual([]);
  });

  it('never shows another organisation its endpoints', async () => {
    const theirs = await create({ url: PUBLIC_URL }, otherKey);
    const mine = await h.call('GET', '/api/v1/webhooks', { as: key });
    expect(mine.body.map((w: { id: string }) => w.id)).not.toContain(theirs.body.id);
  });
});

describe('DELETE /api/v1/webhooks/:id', () => {
  it('removes the endpoint: 204, then gone from the list, then 404', async () => {
    const made = await create({ url: PUBLIC_URL });
    const res = await h.call('DELETE', `/api/v1/webhooks/${made.body.id}`, { as: key });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    const list = await h.call('GET', '/api/v1/webhooks', { as: key });
    expect(list.body.map((w: { id: string }) => w.id)).not.toContain(made.body.id);
    expectProblem(await h.call('DELETE', `/api/v1/webhooks/${made.body.id}`, { as: key }), 404);
  });

  it("answers 404 for an unknown, another organisation's and a malformed id alike, and leaves theirs alone", async () => {
    const theirs = await create({ url: PUBLIC_URL }, otherKey);
    for (const id of [randomUUID(), theirs.body.id, 'not-a-uuid']) {
      const problem = expectProblem(await h.call('DELETE', `/api/v1/webhooks/${id}`, { as: key }), 404);
      expect(problem.detail).toBe(`No webhook with id '${id}' was found.`);
    }
    const still = await h.call('GET', '/api/v1/webhooks', { as: otherKey });
    expect(still.body.map((w: { id: string }) => w.id)).toContain(theirs.body.id);
  });
});

describe('callers', () => {
  it.each([
    ['GET', '/api/v1/webhooks'],
    ['POST', '/api/v1/webhooks'],
    ['DELETE', `/api/v1/webhooks/${randomUUID()}`],
  ])('%s %s answers 401 without a caller and to the operator', async (method, path) => {
    const body = method === 'POST' ? { url: PUBLIC_URL } : undefined;
    expectProblem(await h.call(method, path, { body }), 401);
    expectProblem(await h.call(method, path, { as: asAdmin, body }), 401);
  });

  it('ignores a half-formed identity', async () => {
    const res = await h.call('GET', '/api/v1/webhooks', { headers: { 'x-preflight-actor': 'api-key', 'x-preflight-org-id': orgA } });
    expectProblem(res, 401);
  });
});
