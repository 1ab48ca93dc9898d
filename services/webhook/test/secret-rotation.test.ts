import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_URL, asAdmin, asKey, expectProblem, newKey, startHarness, type Harness } from './harness.ts';

const OLD_KEY = newKey('2024-01');
const NEW_KEY = newKey('2025-06');
const HOUR_MS = 3_600_000;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ secretKeys: OLD_KEY });
});
afterAll(() => h?.close());

const create = async (org: string, via: Harness = h) => (await via.call('POST', '/api/v1/webhooks', { as: asKey(org), body: { url: PUBLIC_URL } })).body;
const rotate = (id: string, body?: unknown, via: Harness = h) => via.call('POST', `/admin/v1/webhooks/${id}/secret/rotate`, { as: asAdmin, body });
const listed = async (org: string, via: Harness = h) => (await via.call('GET', `/internal/v1/orgs/${org}/endpoints?eventType=IssueCreated`)).body;
const detail = (id: string, via: Harness = h) => via.call('GET', `/internal/v1/webhooks/${id}/endpoint`);

/** The delivery service sees the endpoint with `secret` alone, no previous one (list and single lookup alike). */
async function expectOnlySecret(org: string, id: string, secret: string, via: Harness = h) {
  const alone = { secret, previousSecret: null, previousSecretExpiresAt: null };
  expect(await listed(org, via)).toEqual([{ id, url: PUBLIC_URL, events: [], ...alone }]);
  expect((await detail(id, via)).body).toMatchObject(alone);
}

/** `iso` lies `hours` from the moment `before`..`after` the call was made. */
function expectHoursAhead(iso: string, hours: number, before: number, after: number) {
  expect(new Date(iso).toISOString()).toBe(iso);
  const at = Date.parse(iso);
  // The database clock stamps it; a second of slack either side for clocks and rounding.
  expect(at).toBeGreaterThanOrEqual(before + hours * HOUR_MS - 1_000);
  expect(at).toBeLessThanOrEqual(after + hours * HOUR_MS + 1_000);
}

describe('POST /admin/v1/webhooks/:id/secret/rotate', () => {
  it('answers a new secret and keeps the old one for 24 hours by default', async () => {
    const org = randomUUID();
    const made = await create(org);
    const before = Date.now();
    const res = await rotate(made.id);
    const after = Date.now();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['previousSecretExpiresAt', 'secret']);
    expect(Buffer.from(res.body.secret, 'base64')).toHaveLength(32);
    expect(res.body.secret).not.toBe(made.secret);
    expectHoursAhead(res.body.previousSecretExpiresAt, 24, before, after);

    // The delivery service signs with both during the grace period.
    expect(await listed(org)).toEqual([
      { id: made.id, url: PUBLIC_URL, events: [], secret: res.body.secret, previousSecret: made.secret, previousSecretExpiresAt: res.body.previousSecretExpiresAt },
    ]);
    // No list, public or admin, shows either secret.
    for (const [path, as] of [['/api/v1/webhooks', asKey(org)], [`/admin/v1/organizations/${org}/webhooks`, asAdmin]] as const) {
      const text = JSON.stringify((await h.call('GET', path, { as })).body);
      expect(text).not.toContain(res.body.secret);
      expect(text).not.toContain(made.secret);
    }
  });

  it('takes graceHours from 0 to 72; with 0 the old secret stops at once', async () => {
    const org = randomUUID();
    const made = await create(org);
    let before = Date.now();
    const twoHours = await rotate(made.id, { graceHours: 2 });
    expectHoursAhead(twoHours.body.previousSecretExpiresAt, 2, before, Date.now());
    before = Date.now();
    const longest = await rotate(made.id, { graceHours: 72 });
    expectHoursAhead(longest.body.previousSecretExpiresAt, 72, before, Date.now());

    before = Date.now();
    const none = await rotate(made.id, { graceHours: 0 });
    expect(none.status).toBe(200);
    expectHoursAhead(none.body.previousSecretExpiresAt, 0, before, Date.now());
    await expectOnlySecret(org, made.id, none.body.secret);
  });

  it('rotating again during a grace keeps the secret current at that moment as the previous one', async () => {
    const org = randomUUID();
    const made = await create(org);
    const first = await rotate(made.id, { graceHours: 24 });
    const second = await rotate(made.id, { graceHours: 1 });
    expect(new Set([made.secret, first.body.secret, second.body.secret]).size).toBe(3);
    const [endpoint] = await listed(org);
    expect(endpoint).toMatchObject({ secret: second.body.secret, previousSecret: first.body.secret, previousSecretExpiresAt: second.body.previousSecretExpiresAt });
    expect(JSON.stringify(endpoint)).not.toContain(made.secret);
  });

  it('orders concurrent rotations: the last one answered holds the secret of one before it', async () => {
    const org = randomUUID();
    const made = await create(org);
    const answers = await Promise.all(Array.from({ length: 4 }, () => rotate(made.id, { graceHours: 1 })));
    const secrets = answers.map((a) => a.body.secret);
    const [endpoint] = await listed(org);
    expect(secrets).toContain(endpoint.secret);
    // The last rotation kept the secret another one made: none of them worked from a stale row.
    expect(secrets.filter((s) => s !== endpoint.secret)).toContain(endpoint.previousSecret);
  });

  it('refuses graceHours outside 0..72, fractions, non-numbers and other fields (422), changing nothing', async () => {
    const org = randomUUID();
    const made = await create(org);
    for (const graceHours of [-1, 73, 1.5, 'x', null, true]) {
      const problem = expectProblem(await rotate(made.id, { graceHours }), 422);
      expect(Object.keys(problem.errors)).toEqual(['graceHours']);
    }
    expect(Object.keys(expectProblem(await rotate(made.id, { graceHours: 1, extra: 1 }), 422).errors)).toEqual(['extra']);
    expectProblem(await rotate(made.id, [1]), 422);
    expect(await listed(org)).toMatchObject([{ secret: made.secret, previousSecret: null }]);
  });

  it('answers 404 for an unknown, deleted or malformed id', async () => {
    const org = randomUUID();
    const made = await create(org);
    await h.call('DELETE', `/api/v1/webhooks/${made.id}`, { as: asKey(org) });
    for (const id of [randomUUID(), made.id, 'nope']) expectProblem(await rotate(id, {}), 404);
  });

  it('is the operator\'s: 403 to an API key, 401 without a caller', async () => {
    const org = randomUUID();
    const made = await create(org);
    expectProblem(await h.call('POST', `/admin/v1/webhooks/${made.id}/secret/rotate`, { as: asKey(org), body: {} }), 403);
    expectProblem(await h.call('POST', `/admin/v1/webhooks/${made.id}/secret/rotate`, { body: {} }), 401);
    expect(await listed(org)).toMatchObject([{ secret: made.secret }]);
  });
});

describe('rotation and the encryption keys', () => {
  it('seals the kept secret under the primary key, like the new one', async () => {
    const org = randomUUID();
    const made = await create(org);
    const rotated = await startHarness({ schema: h.schema, secretKeys: `${NEW_KEY},${OLD_KEY}` });
    try {
      const res = await rotate(made.id, { graceHours: 1 }, rotated);
      const row = await h.db.selectFrom('webhooks').select(['secret_key_id', 'previous_secret_key_id']).where('id', '=', made.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ secret_key_id: '2025-06', previous_secret_key_id: '2025-06' });
      // Once the old key is gone, both still open.
      const onlyNew = await startHarness({ schema: h.schema, secretKeys: NEW_KEY });
      try {
        expect(await listed(org, onlyNew)).toMatchObject([{ secret: res.body.secret, previousSecret: made.secret }]);
      } finally {
        await onlyNew.close();
      }
    } finally {
      await rotated.close();
    }
  });

  it('replaces a secret no configured key opens, keeping no previous secret', async () => {
    const org = randomUUID();
    const made = await create(org);
    const onlyNew = await startHarness({ schema: h.schema, secretKeys: NEW_KEY });
    try {
      expect(await listed(org, onlyNew)).toEqual([]);
      const before = Date.now();
      const res = await rotate(made.id, { graceHours: 24 }, onlyNew);
      expect(res.status).toBe(200);
      expectHoursAhead(res.body.previousSecretExpiresAt, 0, before, Date.now());
      await expectOnlySecret(org, made.id, res.body.secret, onlyNew);
    } finally {
      await onlyNew.close();
    }
  });

  it('delivers with the current secret alone when the previous one cannot be opened', async () => {
    const org = randomUUID();
    const made = await create(org);
    const res = await rotate(made.id, { graceHours: 1 });
    await h.db.updateTable('webhooks').set({ previous_secret_tag: Buffer.alloc(16) }).where('id', '=', made.id).execute();
    await expectOnlySecret(org, made.id, res.body.secret);
  });

  it('stops offering the previous secret once its grace has run out', async () => {
    const org = randomUUID();
    const made = await create(org);
    const res = await rotate(made.id, { graceHours: 1 });
    expect(await listed(org)).toMatchObject([{ previousSecret: made.secret }]);
    // An hour cannot pass in a test: move the expiry into the past instead.
    await h.db.updateTable('webhooks').set({ previous_secret_expires_at: new Date(Date.now() - 1_000) }).where('id', '=', made.id).execute();
    await expectOnlySecret(org, made.id, res.body.secret);
  });
});
