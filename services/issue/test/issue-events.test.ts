import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, sql } from '@preflight/db';
import { fromTimestamp, toPublicEvents, type DomainEvent, type DomainEventKind, type DomainEventMessage } from '@preflight/events';
import { TEST_DATABASE_URL, eventually } from '@preflight/testing';
import { eventPublisher, watchEvents, type EventWatch, type SeenEvent } from './event-stream.ts';
import { asAdmin, asKey, startHarness, type Harness, type StubCampaign } from './harness.ts';

let h: Harness;
let watch: EventWatch;
const org = randomUUID();
let campaign: StubCampaign;
let fenceCampaign: StubCampaign;

beforeAll(async () => {
  h = await startHarness();
  watch = await watchEvents(h.stream, `${h.prefix}.issue.>`);
  campaign = h.stub.add(org, { name: 'Checkout revamp' });
  fenceCampaign = h.stub.add(org);
});
afterAll(async () => {
  await watch?.close();
  await h?.close();
});

const file = async (body: Record<string, unknown> = {}) => {
  const res = await h.call('POST', `/admin/v1/campaigns/${campaign.id}/issues`, { as: asAdmin, body: { title: 'Pay button dead', severity: 'High', type: 'Bug', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; seqNumber: number };
};
const move = (id: string, body: Record<string, unknown>) => h.call('POST', `/admin/v1/issues/${id}/status`, { as: asAdmin, body });

/**
 * Files an issue elsewhere and waits for its event. One relay publishes in outbox order and the
 * watch reads in stream order, so everything committed before is in `watch.seen` by then:
 * counting "exactly one" after a fence cannot miss a late duplicate.
 */
async function fence(): Promise<void> {
  const res = await h.call('POST', `/admin/v1/campaigns/${fenceCampaign.id}/issues`, { as: asAdmin, body: { title: 'fence', severity: 'Low', type: 'Bug' } });
  expect(res.status).toBe(201);
  await eventually(() => expect(watch.about(res.body.id)).toHaveLength(1), { timeoutMs: 10_000 });
}

function message<K extends DomainEventKind>(seen: SeenEvent, kind: K): DomainEventMessage<K> {
  expect(seen.event.kind).toBe(kind);
  return seen.event.message as DomainEventMessage<K>;
}
const publicNames = (e: DomainEvent) => toPublicEvents(e).map((p) => p.eventType);

describe('IssueCreated', () => {
  it('files concurrent creates of one campaign together: each its own fields, number, history and one event, some sharing a transaction', async () => {
    const own = h.stub.add(org, { name: 'Busy campaign' });
    const severities = ['Critical', 'High', 'Medium', 'Low', 'Trivial'] as const;
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        h.call('POST', `/admin/v1/campaigns/${own.id}/issues`, {
          as: asAdmin,
          body: { title: `Concurrent ${i}`, severity: severities[i % 5], type: 'Bug', testerEmail: `t${i}@example.com` },
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(30).fill(201));
    expect(replies.map((r) => r.body.seqNumber).sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    await fence();
    const createdAt = new Set<string>();
    for (const [i, reply] of replies.entries()) {
      const detail = (await h.call('GET', `/admin/v1/issues/${reply.body.id}`, { as: asAdmin })).body;
      expect(detail).toMatchObject({ id: reply.body.id, seqNumber: reply.body.seqNumber, title: `Concurrent ${i}`, severity: severities[i % 5], testerEmail: `t${i}@example.com`, status: 'New' });
      expect(detail.history).toHaveLength(1);
      const events = watch.about(reply.body.id);
      expect(events).toHaveLength(1);
      expect(message(events[0]!, 'IssueCreated')).toMatchObject({ seqNumber: reply.body.seqNumber, title: `Concurrent ${i}`, revision: 1 });
      createdAt.add(detail.createdAt);
    }
    // Issues filed in one transaction share its timestamp: requests that arrived while one was
    // being written were gathered into the next.
    expect(createdAt.size).toBeLessThan(30);
  });

  it('puts exactly one event with every field and revision 1 on the stream', async () => {
    const created = await file({ pageUrl: 'https://shop.example.com/pay', testerEmail: 'tess@example.com', description: 'Nothing happens' });
    await fence();
    const events = watch.about(created.id);
    expect(events).toHaveLength(1);
    const seen = events[0]!;
    expect(seen).toMatchObject({ subject: `${h.prefix}.issue.created`, type: 'preflight.issue.v1.IssueCreated', orgId: org });
    expect(seen.id).toMatch(/^[0-9a-f-]{36}$/);
    const m = message(seen, 'IssueCreated');
    const detail = (await h.call('GET', `/admin/v1/issues/${created.id}`, { as: asAdmin })).body;
    expect({ ...m, createdAt: fromTimestamp(m.createdAt!).toISOString() }).toMatchObject({
      issueId: created.id,
      orgId: org,
      campaignId: campaign.id,
      seqNumber: created.seqNumber,
      title: 'Pay button dead',
      severity: 'High',
      type: 'Bug',
      status: 'New',
      pageUrl: 'https://shop.example.com/pay',
      testerEmail: 'tess@example.com',
      reporter: 'tess@example.com',
      createdAt: detail.createdAt,
      revision: 1,
    });
    expect(toPublicEvents(seen.event)).toEqual([
      {
        eventType: 'IssueCreated',
        occurredAt: new Date(detail.createdAt),
        data: { issueId: created.id, campaignId: campaign.id, title: 'Pay button dead', severity: 'High', type: 'Bug', status: 'New', pageUrl: 'https://shop.example.com/pay' },
      },
    ]);
  });

  it('leaves optional fields absent on a public filing and names the key as reporter', async () => {
    const res = await h.call('POST', `/api/v1/campaigns/${campaign.id}/issues`, { as: asKey(org, 'ci-bot'), body: { title: 'Typo', severity: 'Low', type: 'ContentError' } });
    expect(res.status).toBe(201);
    await eventually(() => expect(watch.about(res.body.id)).toHaveLength(1));
    const m = message(watch.about(res.body.id)[0]!, 'IssueCreated');
    expect(m).toMatchObject({ seqNumber: res.body.seqNumber, reporter: 'API key ci-bot', revision: 1, type: 'ContentError' });
    expect(m.pageUrl).toBeUndefined();
    expect(m.testerEmail).toBeUndefined();
  });
});

describe('IssueStatusChanged', () => {
  it('emits exactly one event per transition, with the revision and the most specific public name', async () => {
    const { id } = await file();
    const other = await file({ title: 'The original' });
    // Every status is reached at least once as a target.
    const path: Array<[string, string | undefined]> = [
      ['Acknowledged', 'Seen it'],
      ['InProgress', undefined],
      ['Fixed', 'Patched'],
      ['RetestRequested', 'On staging'],
      ['RetestFailed', 'Still broken'],
      ['Fixed', 'Patched again'],
      ['RetestRequested', undefined],
      ['RetestFixed', 'Works'],
      ['Closed', 'Shipped'],
      ['Acknowledged', 'Reopened'],
      ['WontFix', 'Not worth it'],
      ['Acknowledged', undefined],
      ['Duplicate', 'Same as the original'],
      ['Acknowledged', 'Not a duplicate after all'],
    ];
    for (const [to, reason] of path) {
      const res = await move(id, { to, ...(reason ? { reason } : {}), ...(to === 'Duplicate' ? { duplicateOfId: other.id } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    await fence();

    const events = watch.about(id);
    expect(events).toHaveLength(1 + path.length);
    expect(message(events[0]!, 'IssueCreated').revision).toBe(1);
    const history = (await h.call('GET', `/admin/v1/issues/${id}`, { as: asAdmin })).body.history as Array<{ occurredAt: string }>;
    let from = 'New';
    path.forEach(([to, reason], i) => {
      const seen = events[i + 1]!;
      expect(seen).toMatchObject({ subject: `${h.prefix}.issue.status_changed`, type: 'preflight.issue.v1.IssueStatusChanged', orgId: org });
      const m = message(seen, 'IssueStatusChanged');
      expect({ ...m, occurredAt: fromTimestamp(m.occurredAt!).toISOString() }).toEqual({
        $typeName: 'preflight.issue.v1.IssueStatusChanged',
        issueId: id,
        orgId: org,
        campaignId: campaign.id,
        title: 'Pay button dead',
        severity: 'High',
        oldStatus: from,
        newStatus: to,
        ...(reason ? { reason } : {}),
        occurredAt: history[i + 1]!.occurredAt,
        revision: i + 2,
      });
      from = to;
    });

    const expectedPublic: Record<string, string> = {
      Acknowledged: 'IssueUpdated',
      InProgress: 'IssueUpdated',
      Fixed: 'IssueUpdated',
      RetestRequested: 'RetestRequested',
      RetestFixed: 'RetestCompleted',
      RetestFailed: 'RetestCompleted',
      Closed: 'IssueClosed',
      WontFix: 'IssueClosed',
      Duplicate: 'IssueClosed',
    };
    expect(events.slice(1).map((s) => publicNames(s.event))).toEqual(path.map(([to]) => [expectedPublic[to]]));
    const duplicate = toPublicEvents(events[13]!.event)[0]!;
    expect(duplicate.data).toEqual({ issueId: id, campaignId: campaign.id, title: 'Pay button dead', oldStatus: 'Acknowledged', newStatus: 'Duplicate', reason: 'Same as the original' });
  });

  it('enqueues nothing for a refused change (409, 422) and does not count it as a revision', async () => {
    const { id } = await file();
    const other = await file();
    expect((await move(id, { to: 'RetestFixed' })).status).toBe(409);
    expect((await move(id, { to: 'New' })).status).toBe(409);
    expect((await move(id, { to: 'Duplicate', duplicateOfId: randomUUID() })).status).toBe(422);
    expect((await move(id, { to: 'Duplicate', duplicateOfId: id })).status).toBe(422);
    expect((await move(id, { to: 'Closed', duplicateOfId: other.id })).status).toBe(422);
    expect((await move(id, { to: 'Fixed' })).status).toBe(200);
    await fence();
    const events = watch.about(id);
    expect(events.map((s) => [s.event.kind, 'revision' in s.event.message ? s.event.message.revision : undefined])).toEqual([
      ['IssueCreated', 1],
      ['IssueStatusChanged', 2],
    ]);
  });
});

describe('IssueAssigned', () => {
  it('emits one event per real assignee change, none for naming the same assignee again', async () => {
    const { id } = await file();
    const assign = (assigneeName: string | null) => h.call('POST', `/admin/v1/issues/${id}/assignee`, { as: asAdmin, body: { assigneeName } });
    expect((await assign('Dana')).status).toBe(200);
    expect((await assign('Lee')).status).toBe(200);
    expect((await assign('Lee')).status).toBe(200);
    expect((await assign(null)).status).toBe(200);
    expect((await move(id, { to: 'Acknowledged' })).status).toBe(200);
    await fence();

    const events = watch.about(id);
    expect(events.map((s) => s.event.kind)).toEqual(['IssueCreated', 'IssueAssigned', 'IssueAssigned', 'IssueAssigned', 'IssueStatusChanged']);
    const assigned = events.slice(1, 4).map((s) => {
      const m = message(s, 'IssueAssigned');
      return { subject: s.subject, issueId: m.issueId, campaignId: m.campaignId, orgId: m.orgId, title: m.title, to: m.assigneeName, from: m.oldAssigneeName, revision: m.revision, at: m.occurredAt !== undefined };
    });
    const common = { subject: `${h.prefix}.issue.assigned`, issueId: id, campaignId: campaign.id, orgId: org, title: 'Pay button dead', at: true };
    expect(assigned).toEqual([
      { ...common, to: 'Dana', from: undefined, revision: 2 },
      { ...common, to: 'Lee', from: 'Dana', revision: 3 },
      { ...common, to: undefined, from: 'Lee', revision: 4 },
    ]);
    expect(message(events[4]!, 'IssueStatusChanged').revision).toBe(5);
    expect(events.slice(1, 4).flatMap((s) => toPublicEvents(s.event))).toEqual([]);
  });
});

describe('the outbox crash window', () => {
  it('publishes what was committed while no relay ran, exactly once, even when it had been published before the mark', async () => {
    await h.relay.stop();
    const a = await file({ title: 'Filed while the relay was down' });
    const b = await file({ title: 'Published, then the relay crashed' });

    // b's row went out but its mark never committed (a crash between publish and commit):
    // publish it as the relay did, with its id.
    const database = createDatabase({ url: TEST_DATABASE_URL, schema: h.schema, poolMax: 1 });
    const publisher = await eventPublisher(h.prefix);
    try {
      const { rows } = await sql<{ id: string; subject: string; type: string; payload: Buffer; org_id: string }>`
        select id, subject, type, payload, org_id from outbox where published_at is null order by seq`.execute(database.db);
      expect(rows).toHaveLength(2);
      const row = rows[1]!;
      await publisher.publishRaw(row.subject, row.payload, { id: row.id, type: row.type, orgId: row.org_id });
      await eventually(() => expect(watch.about(b.id)).toHaveLength(1));
      expect(watch.about(a.id)).toHaveLength(0);

      h.relay.start();
      await fence();
      expect(watch.about(a.id)).toHaveLength(1);
      expect(watch.about(b.id)).toHaveLength(1);
      expect(watch.about(b.id)[0]!.id).toBe(row.id);
      const left = await sql<{ n: number }>`select count(*)::int as n from outbox where published_at is null`.execute(database.db);
      expect(left.rows[0]!.n).toBe(0);
    } finally {
      await publisher.close();
      await database.close();
    }
  });
});
