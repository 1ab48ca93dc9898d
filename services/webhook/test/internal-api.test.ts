import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_URL, asAdmin, asKey, expectProblem, newKey, startHarness, type Harness } from './harness.ts';

const OLD_KEY = newKey('2024-01');
const NEW_KEY = newKey('2025-06');
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ secretKeys: OLD_KEY });
});
afterAll(() => h?.close());

const createFor = (orgId: string, body: Record<string, unknown>, via: Harness = h) =>
  via.call('POST', '/api/v1/webhooks', { as: asKey(orgId), body: { url: PUBLIC_URL, ...body } });
const endpoints = (orgId: string, eventType: string, via: Harness = h) =>
  via.call('GET', `/internal/v1/orgs/${orgId}/endpoints?eventType=${encodeURIComponent(eventType)}`);
const outcome = (id: string, delivered: boolean) => h.call('POST', `/internal/v1/webhooks/${id}/delivery-outcome`, { body: { delivered } });
/** An organisation's endpoints in each state: enabled, disabled (5 failed deliveries) and deleted; their ids. */
async function endpointsInEachState(org: string): Promise<{ kept: string; disabled: string; deleted: string }> {
  const [kept, disabled, deleted] = [(await createFor(org, {})).body.id, (await createFor(org, {})).body.id, (await createFor(org, {})).body.id];
  for (let i = 0; i < 5; i += 1) await outcome(disabled, false);
  await h.call('DELETE', `/api/v1/webhooks/${deleted}`, { as: asKey(org) });
  return { kept, disabled, deleted };
}
const adminView = async (orgId: string, id: string) =>
  (await h.call('GET', `/admin/v1/organizations/${orgId}/webhooks`, { as: asAdmin })).body.find((w: { id: string }) => w.id === id);

describe('GET /internal/v1/orgs/:orgId/endpoints', () => {
  it('answers the enabled endpoints subscribed to the event or to everything, with decrypted secrets', async () => {
    const org = randomUUID();
    const all = await createFor(org, {});
    const issues = await createFor(org, { events: ['IssueCreated', 'IssueClosed'] });
    const campaigns = await createFor(org, { events: ['CampaignLaunched'] });
    await createFor(randomUUID(), {}); // another organisation's

    const res = await endpoints(org, 'IssueCreated');
    expect(res.status).toBe(200);
    // previousSecret and previousSecretExpiresAt are set only during a rotation's grace (secret-rotation.test.ts).
    const unrotated = { previousSecret: null, previousSecretExpiresAt: null };
    expect(res.body).toEqual([
      { id: all.body.id, url: PUBLIC_URL, secret: all.body.secret, ...unrotated, events: [] },
      { id: issues.body.id, url: PUBLIC_URL, secret: issues.body.secret, ...unrotated, events: ['IssueCreated', 'IssueClosed'] },
    ]);
    expect((await endpoints(org, 'CampaignLaunched')).body.map((e: { id: string }) => e.id)).toEqual([all.body.id, campaigns.body.id]);
    expect((await endpoints(org, 'ReportSealed')).body.map((e: { id: string }) => e.id)).toEqual([all.body.id]);
    expect((await endpoints(randomUUID(), 'IssueCreated')).body).toEqual([]);
  });

  it('leaves out disabled and deleted endpoints', async () => {
    const org = randomUUID();
    const { kept } = await endpointsInEachState(org);
    expect((await endpoints(org, 'IssueUpdated')).body.map((e: { id: string }) => e.id)).toEqual([kept]);
  });

  it('requires a known event name (400) and a well-formed org id (404)', async () => {
    const missing = expectProblem(await h.call('GET', `/internal/v1/orgs/${randomUUID()}/endpoints`), 400);
    expect(missing.errors.eventType).toEqual(['eventType is required.']);
    expect(expectProblem(await endpoints(randomUUID(), 'Nope'), 400).errors).toHaveProperty('eventType');
    expect((await endpoints(randomUUID(), 'TesterInvited')).status).toBe(200);
    expectProblem(await endpoints('nope', 'IssueCreated'), 404);
  });
});

describe('GET /internal/v1/webhooks/:id', () => {
  it('answers an endpoint\'s id, organisation and state, disabled or not, and 404 once it is deleted or for an unknown or malformed id', async () => {
    const org = randomUUID();
    const { kept, disabled, deleted } = await endpointsInEachState(org);
    for (const [id, isEnabled] of [[kept, true], [disabled, false]] as const) {
      const res = await h.call('GET', `/internal/v1/webhooks/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id, orgId: org, isEnabled });
    }
    expect(expectProblem(await h.call('GET', `/internal/v1/webhooks/${deleted}`), 404).detail).toContain(deleted);
    expectProblem(await h.call('GET', `/internal/v1/webhooks/${randomUUID()}`), 404);
    expectProblem(await h.call('GET', '/internal/v1/webhooks/nope'), 404);
  });
});

describe('GET /internal/v1/webhooks/:id/endpoint', () => {
  const detail = (id: string, via: Harness = h) => via.call('GET', `/internal/v1/webhooks/${id}/endpoint`);

  it('answers an endpoint with its secrets whatever its state or event filter', async () => {
    const org = randomUUID();
    const { kept, disabled, deleted } = await endpointsInEachState(org);
    const filtered = await createFor(org, { events: ['ReportSealed'] });
    // A rotation without grace tells the secret the endpoint then holds (a disabled one rotates too).
    const secretOf = async (id: string) => (await h.call('POST', `/admin/v1/webhooks/${id}/secret/rotate`, { as: asAdmin, body: { graceHours: 0 } })).body.secret;
    for (const [id, isEnabled, events] of [[kept, true, []], [disabled, false, []], [filtered.body.id, true, ['ReportSealed']]] as const) {
      const secret = await secretOf(id);
      const res = await h.call('GET', `/internal/v1/webhooks/${id}/endpoint`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id, orgId: org, url: PUBLIC_URL, events, isEnabled, secret, previousSecret: null, previousSecretExpiresAt: null });
    }
    // During a grace, the previous secret too.
    const before = (await detail(kept)).body.secret;
    const rotated = await h.call('POST', `/admin/v1/webhooks/${kept}/secret/rotate`, { as: asAdmin, body: { graceHours: 3 } });
    expect((await detail(kept)).body).toMatchObject({ secret: rotated.body.secret, previousSecret: before, previousSecretExpiresAt: rotated.body.previousSecretExpiresAt });

    expectProblem(await detail(deleted), 404);
    expectProblem(await detail(randomUUID()), 404);
    expectProblem(await detail('nope'), 404);
  });

  it('answers 409 for an endpoint whose secret this deployment cannot decrypt', async () => {
    const made = await createFor(randomUUID(), {});
    const onlyNew = await startHarness({ schema: h.schema, secretKeys: NEW_KEY });
    try {
      const problem = expectProblem(await detail(made.body.id, onlyNew), 409);
      expect(problem.detail).toBe("the endpoint's secret cannot be decrypted with this deployment's keys");
      expect(JSON.stringify(problem)).not.toContain(made.body.secret);
    } finally {
      await onlyNew.close();
    }
    expect((await detail(made.body.id)).body.secret).toBe(made.body.secret);
  });
});

describe('key rotation', () => {
  it('decrypts secrets sealed with an older key once a new key is first, and seals new ones with it', async () => {
    const org = randomUUID();
    const before = await createFor(org, { name: 'sealed with the old key' });
    const rotated = await startHarness({ schema: h.schema, secretKeys: `${NEW_KEY},${OLD_KEY}` });
    try {
      const after = await createFor(org, { name: 'sealed with the new key' }, rotated);
      const rows = await h.db.selectFrom('webhooks').select(['id', 'secret_key_id']).where('org_id', '=', org).orderBy('created_at').execute();
      expect(rows).toEqual([
        { id: before.body.id, secret_key_id: '2024-01' },
        { id: after.body.id, secret_key_id: '2025-06' },
      ]);
      const listed = await endpoints(org, 'IssueCreated', rotated);
      expect(listed.body.map((e: { secret: string }) => e.secret)).toEqual([before.body.secret, after.body.secret]);
    } finally {
      await rotated.close();
    }
  });

  it('skips an endpoint whose key is no longer configured, serving the others', async () => {
    const org = randomUUID();
    const old = await createFor(org, {});
    const onlyNew = await startHarness({ schema: h.schema, secretKeys: NEW_KEY });
    try {
      const fresh = await createFor(org, {}, onlyNew);
      const listed = await endpoints(org, 'IssueCreated', onlyNew);
      expect(listed.status).toBe(200);
      expect(listed.body.map((e: { id: string }) => e.id)).toEqual([fresh.body.id]);
      expect(listed.body.map((e: { id: string }) => e.id)).not.toContain(old.body.id);
    } finally {
      await onlyNew.close();
    }
  });
});

describe('POST /internal/v1/webhooks/:id/delivery-outcome', () => {
  it('disables the endpoint at the fifth consecutive failure', async () => {
    const org = randomUUID();
    const made = await createFor(org, {});
    for (let i = 1; i <= 4; i += 1) {
      const res = await outcome(made.body.id, false);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ isEnabled: true, consecutiveFailures: i });
    }
    expect(await adminView(org, made.body.id)).toMatchObject({ isEnabled: true, consecutiveFailures: 4, disabledAt: null });
    expect((await outcome(made.body.id, false)).body).toEqual({ isEnabled: false, consecutiveFailures: 5 });
    const disabled = await adminView(org, made.body.id);
    expect(disabled).toMatchObject({ isEnabled: false, consecutiveFailures: 5, disabledAt: expect.any(String) });
    const pub = await h.call('GET', '/api/v1/webhooks', { as: asKey(org) });
    expect(pub.body[0]).toMatchObject({ id: made.body.id, isEnabled: false });

    // Further failures keep counting but keep the first disabledAt; a late success resets the
    // count without re-enabling (only the operator does).
    expect((await outcome(made.body.id, false)).body).toEqual({ isEnabled: false, consecutiveFailures: 6 });
    expect((await adminView(org, made.body.id)).disabledAt).toBe(disabled.disabledAt);
    expect((await outcome(made.body.id, true)).body).toEqual({ isEnabled: false, consecutiveFailures: 0 });
  });

  it('resets the streak on a success, so failures must be consecutive', async () => {
    const made = await createFor(randomUUID(), {});
    for (let i = 0; i < 4; i += 1) await outcome(made.body.id, false);
    expect((await outcome(made.body.id, true)).body).toEqual({ isEnabled: true, consecutiveFailures: 0 });
    for (let i = 0; i < 4; i += 1) await outcome(made.body.id, false);
    expect((await outcome(made.body.id, false)).body).toEqual({ isEnabled: false, consecutiveFailures: 5 });
  });

  it('counts concurrent outcomes exactly', async () => {
    const org = randomUUID();
    const made = await createFor(org, {});
    const replies = await Promise.all(Array.from({ length: 12 }, () => outcome(made.body.id, false)));
    const counts = replies.map((r) => r.body.consecutiveFailures).sort((a, b) => a - b);
    expect(counts).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(replies.filter((r) => r.body.isEnabled).map((r) => r.body.consecutiveFailures).sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
    expect(await adminView(org, made.body.id)).toMatchObject({ isEnabled: false, consecutiveFailures: 12 });
  });

  it('validates its body and answers 404 for an unknown endpoint', async () => {
    const made = await createFor(randomUUID(), {});
    for (const body of [{}, { delivered: 'yes' }, { delivered: true, extra: 1 }]) {
      expectProblem(await h.call('POST', `/internal/v1/webhooks/${made.body.id}/delivery-outcome`, { body }), 422);
    }
    expectProblem(await outcome(randomUUID(), true), 404);
    expectProblem(await outcome('bad', true), 404);
  });
});

describe('POST /internal/v1/delivery-outcomes', () => {
  const outcomes = (body: unknown) => h.call('POST', '/internal/v1/delivery-outcomes', { body });

  it('applies a batch in order, as one call per outcome would, and answers each state', async () => {
    const org = randomUUID();
    const a = await createFor(org, {});
    const b = await createFor(org, {});
    const gone = randomUUID();
    const res = await outcomes({
      outcomes: [
        ...Array.from({ length: 4 }, () => ({ webhookId: a.body.id, delivered: false })),
        { webhookId: b.body.id, delivered: false },
        { webhookId: gone, delivered: true },
        { webhookId: a.body.id, delivered: false },
        { webhookId: b.body.id, delivered: true },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      ...[1, 2, 3, 4].map((n) => ({ webhookId: a.body.id, state: { isEnabled: true, consecutiveFailures: n } })),
      { webhookId: b.body.id, state: { isEnabled: true, consecutiveFailures: 1 } },
      { webhookId: gone, state: null },
      { webhookId: a.body.id, state: { isEnabled: false, consecutiveFailures: 5 } },
      { webhookId: b.body.id, state: { isEnabled: true, consecutiveFailures: 0 } },
    ]);
    expect(await adminView(org, a.body.id)).toMatchObject({ isEnabled: false, consecutiveFailures: 5, disabledAt: expect.any(String) });
    expect((await endpoints(org, 'IssueCreated')).body.map((e: { id: string }) => e.id)).toEqual([b.body.id]);
  });

  it('counts concurrent batches exactly', async () => {
    const org = randomUUID();
    const a = await createFor(org, {});
    const b = await createFor(org, {});
    // Both endpoints in every batch, in both orders: the row locks are taken in one order.
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) => {
        const pair = [{ webhookId: a.body.id, delivered: false }, { webhookId: b.body.id, delivered: false }];
        return outcomes({ outcomes: i % 2 ? pair : pair.reverse() });
      }),
    );
    const countsOf = (id: string) => replies.map((r) => r.body.results.find((x: { webhookId: string }) => x.webhookId === id).state.consecutiveFailures).sort((x: number, y: number) => x - y);
    expect(countsOf(a.body.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(countsOf(b.body.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await adminView(org, a.body.id)).toMatchObject({ isEnabled: false, consecutiveFailures: 6, disabledAt: expect.any(String) });
  });

  it('a batch of successes alone resets failing endpoints, leaves disabled ones disabled and answers each state', async () => {
    const org = randomUUID();
    const failing = await createFor(org, {});
    const healthy = await createFor(org, {});
    const disabled = await createFor(org, {});
    const gone = randomUUID();
    await outcomes({ outcomes: [...Array.from({ length: 3 }, () => ({ webhookId: failing.body.id, delivered: false })), ...Array.from({ length: 5 }, () => ({ webhookId: disabled.body.id, delivered: false }))] });
    const res = await outcomes({
      outcomes: [failing, healthy, disabled].map((w) => ({ webhookId: w.body.id.toUpperCase(), delivered: true })).concat({ webhookId: gone, delivered: true }),
    });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { webhookId: failing.body.id, state: { isEnabled: true, consecutiveFailures: 0 } },
      { webhookId: healthy.body.id, state: { isEnabled: true, consecutiveFailures: 0 } },
      { webhookId: disabled.body.id, state: { isEnabled: false, consecutiveFailures: 0 } },
      { webhookId: gone, state: null },
    ]);
    expect(await adminView(org, failing.body.id)).toMatchObject({ isEnabled: true, consecutiveFailures: 0 });
    expect(await adminView(org, disabled.body.id)).toMatchObject({ isEnabled: false, consecutiveFailures: 0, disabledAt: expect.any(String) });
  });

  it('validates its body', async () => {
    const org = randomUUID();
    const made = await createFor(org, {});
    const one = { webhookId: made.body.id, delivered: false };
    for (const body of [{}, { outcomes: [] }, { outcomes: [{ ...one, delivered: 'yes' }] }, { outcomes: [{ webhookId: 'bad', delivered: true }] }, { outcomes: [one], extra: 1 }, { outcomes: Array(501).fill(one) }]) {
      expectProblem(await outcomes(body), 422);
    }
    // A refused batch applied nothing, not even its valid outcomes.
    expect(await adminView(org, made.body.id)).toMatchObject({ consecutiveFailures: 0 });
  });
});
