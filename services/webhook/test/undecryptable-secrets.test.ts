import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeyRing } from '@preflight/secret-box';
import { eventually } from '@preflight/testing';
import { reencryptWebhookSecrets } from '../src/secrets/reencrypt.ts';
import { sealedSecretsPage, writeResealedSecrets } from '../src/storage/sealed-secrets.ts';
import { PUBLIC_URL, asAdmin, asKey, expectProblem, newKey, startHarness, type Harness } from './harness.ts';

/**
 * Issue 22, finding 8: a replica (or a fresh checkout sharing the database) with the wrong
 * at-rest key left the endpoints it could not open out of the delivery service's list, logged
 * once and nothing else. Now they are served as unsignable, counted, and the re-encryption job
 * moves every secret to the active key.
 */
const OLD_KEY = newKey('2024-01');
const NEW_KEY = newKey('2025-06');
// The finding's very case: the same key id, other key material.
const IMPOSTOR = newKey('2024-01');
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ secretKeys: OLD_KEY });
});
afterAll(() => h?.close());

const create = async (org: string, via: Harness = h) => (await via.call('POST', '/api/v1/webhooks', { as: asKey(org), body: { url: PUBLIC_URL } })).body;
const list = (org: string, via: Harness, query = '&unsignable=include') => via.call('GET', `/internal/v1/orgs/${org}/endpoints?eventType=IssueCreated${query}`);
async function metric(via: Harness, name: string, kind: string): Promise<number> {
  const text = await (await fetch(`${via.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`kind="${kind}"`));
  if (!line) throw new Error(`no ${name}{kind="${kind}"} on /metrics`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}
async function withHarness<T>(secretKeys: string, run: (via: Harness) => Promise<T>): Promise<T> {
  const via = await startHarness({ schema: h.schema, secretKeys });
  try {
    return await run(via);
  } finally {
    await via.close();
  }
}

describe('a secret no configured key opens', () => {
  it('is served as unsignable to a caller that asks, left out for one that does not, and counted either way', async () => {
    const org = randomUUID();
    const made = await create(org);
    await withHarness(IMPOSTOR, async (wrong) => {
      const before = await metric(wrong, 'secret_decrypt_failures_total', 'signing-secret');
      const res = await list(org, wrong);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ id: made.id, url: PUBLIC_URL, events: [], secret: null, previousSecret: null, previousSecretExpiresAt: null, secretUnavailable: true }]);
      expect((await list(org, wrong, '')).body).toEqual([]);
      const detail = await wrong.call('GET', `/internal/v1/webhooks/${made.id}/endpoint?unsignable=include`);
      expect(detail.body).toMatchObject({ id: made.id, orgId: org, isEnabled: true, secret: null, secretUnavailable: true });
      expectProblem(await wrong.call('GET', `/internal/v1/webhooks/${made.id}/endpoint`), 409);
      expect(await metric(wrong, 'secret_decrypt_failures_total', 'signing-secret')).toBe(before + 4);
      expect(JSON.stringify(res.body)).not.toContain(made.secret);
    });
    // The right key serves it signable, with no marker.
    expect((await list(org, h)).body).toEqual([{ id: made.id, url: PUBLIC_URL, events: [], secret: made.secret, previousSecret: null, previousSecretExpiresAt: null }]);
  });

  it('shows in secrets_undecryptable on the replica with the wrong key, and not on the others', async () => {
    const made = await create(randomUUID());
    await h.call('POST', `/admin/v1/webhooks/${made.id}/secret/rotate`, { as: asAdmin, body: { graceHours: 2 } });
    await withHarness(IMPOSTOR, async (wrong) => {
      const total = await h.db.selectFrom('webhooks').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
      await eventually(async () => expect(await metric(wrong, 'secrets_undecryptable', 'signing-secret')).toBe(Number(total.n)));
      expect(await metric(wrong, 'secrets_undecryptable', 'previous-signing-secret')).toBeGreaterThanOrEqual(1);
    });
    await withHarness(OLD_KEY, async (right) => {
      await eventually(async () => expect(await metric(right, 'secrets_undecryptable', 'signing-secret')).toBe(0));
      expect(await metric(right, 'secrets_undecryptable', 'previous-signing-secret')).toBe(0);
    });
  });
});

describe('re-encryption after a key rotation', () => {
  it('moves every current and in-grace previous secret to the active key, once, and reports what no key opens', async () => {
    const org = randomUUID();
    const rotated = await create(org);
    const plain = await create(org);
    const previous = rotated.secret;
    const next = (await h.call('POST', `/admin/v1/webhooks/${rotated.id}/secret/rotate`, { as: asAdmin, body: { graceHours: 2 } })).body.secret;
    // One sealed under a key nobody has any more.
    const lost = await withHarness(IMPOSTOR, (wrong) => create(org, wrong));

    const ring = parseKeyRing(`${NEW_KEY},${OLD_KEY}`);
    const first = await reencryptWebhookSecrets(h.db, ring, { write: true, batchSize: 2 });
    expect(first.unopened).toContainEqual(expect.objectContaining({ id: lost.id, kind: 'signing-secret', keyId: '2024-01' }));
    expect(first.resealed).toBeGreaterThanOrEqual(3);
    const mine = await h.db.selectFrom('webhooks').select(['id', 'secret_key_id', 'previous_secret_key_id']).where('org_id', '=', org).execute();
    expect(mine.find((r) => r.id === rotated.id)).toEqual({ id: rotated.id, secret_key_id: '2025-06', previous_secret_key_id: '2025-06' });
    expect(mine.find((r) => r.id === plain.id)).toMatchObject({ secret_key_id: '2025-06' });
    expect(mine.find((r) => r.id === lost.id)).toMatchObject({ secret_key_id: '2024-01' });

    // Idempotent: nothing left to move but what no key opens.
    const second = await reencryptWebhookSecrets(h.db, ring, { write: true });
    expect(second.resealed).toBe(0);
    expect(second.unopened.map((u) => u.id)).toEqual(first.unopened.map((u) => u.id));

    // The old key can go: the new one alone opens both secrets, unchanged.
    await withHarness(NEW_KEY, async (onlyNew) => {
      const listed = (await list(org, onlyNew)).body as Array<Record<string, unknown>>;
      expect(listed.find((e) => e.id === rotated.id)).toMatchObject({ secret: next, previousSecret: previous });
      expect(listed.find((e) => e.id === plain.id)).toMatchObject({ secret: plain.secret });
      expect(listed.find((e) => e.id === lost.id)).toMatchObject({ secretUnavailable: true });
    });
  });

  it('leaves a secret rotated between its read and its write as the rotation made it', async () => {
    const org = randomUUID();
    const made = await create(org);
    const ring = parseKeyRing(`${NEW_KEY},${OLD_KEY}`);
    const [page] = (await sealedSecretsPage(h.db, undefined, 100000)).filter((r) => r.id === made.id);
    // The service rotates meanwhile (and seals under its own active key).
    const rotated = (await h.call('POST', `/admin/v1/webhooks/${made.id}/secret/rotate`, { as: asAdmin, body: { graceHours: 0 } })).body.secret;
    const { sealSecret } = await import('@preflight/secret-box');
    const part = page!.parts[0]!;
    const written = await writeResealedSecrets(h.db, [{ id: made.id, kind: part.kind, was: part.sealed, now: sealSecret(ring, made.secret, part.context) }]);
    expect(written).toBe(0);
    expect((await list(org, h)).body[0]).toMatchObject({ secret: rotated });
  });
});
