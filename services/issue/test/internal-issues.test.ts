import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicEvents, type DomainEventMessage } from '@preflight/events';
import { eventually } from '@preflight/testing';
import { watchEvents, type EventWatch } from './event-stream.ts';
import { asAdmin, expectProblem, startHarness, type Harness, type StubCampaign } from './harness.ts';

/**
 * The /internal/v1 issue routes the integration service calls: the detail with `orgId`, and a
 * status change carrying `origin` onto IssueStatusChanged. No caller headers: only services
 * reach /internal (the gateway never routes it).
 */

let h: Harness;
let watch: EventWatch;
const org = randomUUID();
const connectionId = randomUUID();
const origin = `integration:${connectionId}`;
let campaign: StubCampaign;
let fenceCampaign: StubCampaign;

beforeAll(async () => {
  h = await startHarness();
  watch = await watchEvents(h.stream, `${h.prefix}.issue.>`);
  campaign = h.stub.add(org, { name: 'Checkout revamp', siteName: 'shop.example.com' });
  fenceCampaign = h.stub.add(org);
});
afterAll(async () => {
  await watch?.close();
  await h?.close();
});

async function file(campaignId = campaign.id, title = 'Pay button dead'): Promise<string> {
  const res = await h.call('POST', `/admin/v1/campaigns/${campaignId}/issues`, { as: asAdmin, body: { title, severity: 'High', type: 'Bug', pageUrl: 'https://shop.example.com/pay' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}
const internalMove = (id: string, body: Record<string, unknown>) => h.call('POST', `/internal/v1/issues/${id}/status`, { body });
const adminMove = (id: string, body: Record<string, unknown>) => h.call('POST', `/admin/v1/issues/${id}/status`, { as: asAdmin, body });

/** Files an issue elsewhere and waits for its event: everything committed before is seen by then. */
async function fence(): Promise<void> {
  const id = await file(fenceCampaign.id, 'fence');
  await eventually(() => expect(watch.about(id)).toHaveLength(1), { timeoutMs: 10_000 });
}

describe('GET /internal/v1/issues/:id', () => {
  it('answers the admin detail plus orgId and no history (no caller reads it), without caller headers', async () => {
    const id = await file();
    const internal = await h.call('GET', `/internal/v1/issues/${id}`);
    expect(internal.status).toBe(200);
    const admin = await h.call('GET', `/admin/v1/issues/${id}`, { as: asAdmin });
    expect(internal.body).toEqual({ ...admin.body, history: null, orgId: org });
    expect(internal.body).toMatchObject({
      id,
      seqNumber: expect.any(Number),
      campaignId: campaign.id,
      campaignName: 'Checkout revamp',
      siteName: 'shop.example.com',
      title: 'Pay button dead',
      severity: 'High',
      type: 'Bug',
      status: 'New',
      pageUrl: 'https://shop.example.com/pay',
      reporter: expect.any(String),
      orgId: org,
      history: null,
    });
  });

  it('is 404 for an unknown or malformed id', async () => {
    expectProblem(await h.call('GET', `/internal/v1/issues/${randomUUID()}`), 404);
    expectProblem(await h.call('GET', '/internal/v1/issues/not-a-uuid'), 404);
  });
});

describe('POST /internal/v1/issues/:id/status', () => {
  it('moves the issue like the admin route: history, revision, one IssueStatusChanged carrying origin', async () => {
    const id = await file();
    const res = await internalMove(id, { to: 'Fixed', reason: 'Closed in GitHub as completed', origin });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id, orgId: org, status: 'Fixed' });
    expect(res.body.history.map((e: { from: string | null; to: string; reason: string | null }) => [e.from, e.to, e.reason])).toEqual([
      [null, 'New', null],
      ['New', 'Fixed', 'Closed in GitHub as completed'],
    ]);
    expect((await h.call('GET', `/admin/v1/issues/${id}`, { as: asAdmin })).body.status).toBe('Fixed');

    // A change made in Preflight afterwards carries no origin.
    expect((await adminMove(id, { to: 'RetestRequested' })).status).toBe(200);
    await fence();
    const changes = watch.about(id).filter((s) => s.event.kind === 'IssueStatusChanged');
    expect(changes).toHaveLength(2);
    const [synced, local] = changes.map((s) => s.event.message as DomainEventMessage<'IssueStatusChanged'>);
    expect(synced).toMatchObject({ issueId: id, orgId: org, oldStatus: 'New', newStatus: 'Fixed', reason: 'Closed in GitHub as completed', origin, revision: 2 });
    expect(local).toMatchObject({ oldStatus: 'Fixed', newStatus: 'RetestRequested', revision: 3 });
    expect(local!.origin).toBeUndefined();
    // The public webhook payload does not carry it.
    expect(toPublicEvents(changes[0]!.event)[0]?.data).not.toHaveProperty('origin');
  });

  it('refuses a move the workflow does not allow: 409 with currentStatus and allowedTransitions, nothing changed or emitted', async () => {
    const id = await file();
    expect((await internalMove(id, { to: 'Closed', origin })).status).toBe(200);
    const before = (await h.call('GET', `/internal/v1/issues/${id}`)).body;
    const problem = expectProblem(await internalMove(id, { to: 'Fixed', reason: 'Closed as completed', origin }), 409);
    expect(problem).toMatchObject({ currentStatus: 'Closed', allowedTransitions: ['Acknowledged'] });
    expect((await h.call('GET', `/internal/v1/issues/${id}`)).body).toEqual(before);
    await fence();
    expect(watch.about(id).map((s) => s.event.kind)).toEqual(['IssueCreated', 'IssueStatusChanged']);
  });

  it('is 404 for an unknown issue and 422 for a bad body', async () => {
    expectProblem(await internalMove(randomUUID(), { to: 'Fixed', origin }), 404);
    const id = await file();
    const missing = expectProblem(await internalMove(id, { to: 'Fixed' }), 422);
    expect(missing.errors).toEqual({ origin: ['Is required.'] });
    for (const bad of ['', 'integration', 'Integration:x', 'integration: x', `integration:${'x'.repeat(200)}`]) {
      const problem = expectProblem(await internalMove(id, { to: 'Fixed', origin: bad }), 422);
      expect(Object.keys(problem.errors)).toEqual(['origin']);
    }
    expect(expectProblem(await internalMove(id, { to: 'Nope', origin }), 422).errors).toHaveProperty('to');
    expect(expectProblem(await internalMove(id, { to: 'Duplicate', origin }), 422).errors).toHaveProperty('duplicateOfId');
    expect(expectProblem(await internalMove(id, { to: 'Fixed', origin, extra: 1 }), 422).errors).toBeDefined();
    expect((await h.call('GET', `/internal/v1/issues/${id}`)).body.status).toBe('New');
  });

  it('leaves the admin route as it was: the operator only, and no origin accepted there', async () => {
    const id = await file();
    expectProblem(await h.call('POST', `/admin/v1/issues/${id}/status`, { body: { to: 'Fixed' } }), 401);
    expectProblem(await adminMove(id, { to: 'Fixed', origin }), 422);
  });
});
