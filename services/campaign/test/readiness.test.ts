import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import type { ConsumedEvent } from '@preflight/bus';
import { sql } from '@preflight/db';
import { createEvent, encodeEvent, type DomainEventInit } from '@preflight/events';
import { createLogger } from '@preflight/log';
import { eventually } from '@preflight/testing';
import { READINESS_CONSUMER, readinessBatchHandler } from '../src/consumers/readiness.ts';
import { campaignMetrics } from '../src/metrics.ts';
import { admin, apiKeyOf, createCampaign, createSite, json, MISSING_ID, newOrgId, problem, startTestService, type TestService } from './harness.ts';
import { issueCreated, publishIssueEvent, statusChanged } from './events.ts';

let svc: TestService;
let orgId: string;
let siteId: string;

beforeAll(async () => {
  svc = await startTestService('campaign_readiness');
  orgId = newOrgId();
  siteId = (await createSite(svc, orgId)).id;
});
afterAll(() => svc.stop());

/** The campaign's verdict as an integrator reads it: GET /api/v1/campaigns. */
async function verdictOf(campaignId: string): Promise<{ readinessLevel: string; gate: string }> {
  const list = await json<Array<Record<string, any>>>(await svc.get('/api/v1/campaigns', apiKeyOf(orgId)), 200);
  const c = list.find((x) => x.id === campaignId);
  if (!c) throw new Error(`campaign ${campaignId} not listed`);
  return { readinessLevel: c.readinessLevel, gate: c.gate };
}

async function expectVerdict(campaignId: string, readinessLevel: string, gate: string): Promise<void> {
  await eventually(async () => expect(await verdictOf(campaignId)).toEqual({ readinessLevel, gate }));
}

/** Waits until the readiness consumer has processed (committed) every one of these events. */
async function processed(msgIDs: string[]): Promise<void> {
  await eventually(async () => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from inbox where consumer = ${READINESS_CONSUMER} and event_id = any(${msgIDs})`.execute(svc.db);
    expect(rows[0]!.n).toBe(msgIDs.length);
  });
}

async function newCampaign(name: string): Promise<string> {
  return (await createCampaign(svc, siteId, name)).id;
}

describe('readiness projection of issue events', () => {
  it('walks a campaign through every level and both reachable gates', async () => {
    const campaignId = await newCampaign('Every level');
    expect(await verdictOf(campaignId)).toEqual({ readinessLevel: 'ReadyToLaunch', gate: 'cleared' });
    const base = { orgId, campaignId };

    const low = issueCreated({ ...base, severity: 'Low' });
    await publishIssueEvent(svc, 'IssueCreated', low);
    await expectVerdict(campaignId, 'ReadyWithIssues', 'cleared');

    const high = issueCreated({ ...base, severity: 'High' });
    await publishIssueEvent(svc, 'IssueCreated', high);
    await expectVerdict(campaignId, 'AtRisk', 'not-cleared');

    const critical = issueCreated({ ...base, severity: 'Critical' });
    await publishIssueEvent(svc, 'IssueCreated', critical);
    await expectVerdict(campaignId, 'DoNotLaunch', 'not-cleared');
    // Every admin response carries the verdict too.
    expect(await json(await svc.get(`/admin/v1/campaigns/${campaignId}`, admin), 200)).toMatchObject({ readinessLevel: 'DoNotLaunch', gate: 'not-cleared' });

    await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ ...base, issueId: critical.issueId, severity: 'Critical', from: 'New', to: 'Duplicate', revision: 2 }));
    await expectVerdict(campaignId, 'AtRisk', 'not-cleared');

    await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ ...base, issueId: high.issueId, severity: 'High', from: 'New', to: 'WontFix', revision: 2 }));
    await expectVerdict(campaignId, 'ReadyWithIssues', 'cleared');

    await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ ...base, issueId: low.issueId, severity: 'Low', from: 'RetestRequested', to: 'RetestFixed', revision: 2 }));
    await expectVerdict(campaignId, 'ReadyToLaunch', 'cleared');

    // A failed retest reopens it.
    await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ ...base, issueId: low.issueId, severity: 'Low', from: 'RetestFixed', to: 'RetestFailed', revision: 3 }));
    await expectVerdict(campaignId, 'ReadyWithIssues', 'cleared');
  });

  it('keeps the highest revision whatever the order: revision 3 then 2 then 1 leaves revision 3', async () => {
    const campaignId = await newCampaign('Out of order');
    const base = { orgId, campaignId };
    const created = issueCreated({ ...base, severity: 'Critical' });
    const issueId = created.issueId;

    // Revision 3 (closed) arrives first, then the older ones.
    const r3 = await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ ...base, issueId, severity: 'Critical', from: 'InProgress', to: 'Closed', revision: 3 }));
    await processed([r3.msgID]);
    expect(await verdictOf(campaignId)).toEqual({ readinessLevel: 'ReadyToLaunch', gate: 'cleared' });

    const r2 = await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ ...base, issueId, severity: 'Critical', from: 'New', to: 'InProgress', revision: 2 }));
    const r1 = await publishIssueEvent(svc, 'IssueCreated', created);
    await processed([r2.msgID, r1.msgID]);
    expect(await verdictOf(campaignId)).toEqual({ readinessLevel: 'ReadyToLaunch', gate: 'cleared' });

    // The same revision again under another event id (a replayed event) changes nothing either.
    const again = await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ ...base, issueId, severity: 'Critical', from: 'Closed', to: 'New', revision: 3 }));
    await processed([again.msgID]);
    expect(await verdictOf(campaignId)).toEqual({ readinessLevel: 'ReadyToLaunch', gate: 'cleared' });

    // A genuinely newer revision still counts.
    await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ ...base, issueId, severity: 'Critical', from: 'Closed', to: 'New', revision: 4 }));
    await expectVerdict(campaignId, 'DoNotLaunch', 'not-cleared');
  });

  it('takes the severity from an older event when the newest one did not carry it', async () => {
    const campaignId = await newCampaign('Severity later');
    const base = { orgId, campaignId };
    const created = issueCreated({ ...base, severity: 'High' });
    const r2 = await publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ ...base, issueId: created.issueId, from: 'New', to: 'InProgress', revision: 2 }));
    await processed([r2.msgID]);
    await expectVerdict(campaignId, 'ReadyWithIssues', 'cleared'); // open, severity unknown yet
    await publishIssueEvent(svc, 'IssueCreated', created);
    await expectVerdict(campaignId, 'AtRisk', 'not-cleared');
  });

  it('drops a re-published event (same msgID) and never applies an event twice', async () => {
    const campaignId = await newCampaign('Duplicates');
    const base = { orgId, campaignId };
    const a = issueCreated({ ...base, severity: 'High' });
    const first = await publishIssueEvent(svc, 'IssueCreated', a);
    const repeat = await publishIssueEvent(svc, 'IssueCreated', a, first.msgID);
    expect(repeat.duplicate).toBe(true);
    await expectVerdict(campaignId, 'AtRisk', 'not-cleared');

    // Closing it once makes it ReadyToLaunch; the same close re-sent (new id, same revision) and
    // the creation re-sent (older revision) leave it there.
    const close = statusChanged({ ...base, issueId: a.issueId, severity: 'High', from: 'New', to: 'Closed', revision: 2 });
    await publishIssueEvent(svc, 'IssueStatusChanged', close);
    await expectVerdict(campaignId, 'ReadyToLaunch', 'cleared');
    const replays = [await publishIssueEvent(svc, 'IssueStatusChanged', close), await publishIssueEvent(svc, 'IssueCreated', a)];
    await processed(replays.map((r) => r.msgID));
    expect(await verdictOf(campaignId)).toEqual({ readinessLevel: 'ReadyToLaunch', gate: 'cleared' });
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from inbox where event_id = ${first.msgID}`.execute(svc.db);
    expect(rows[0]!.n).toBe(1);
  });

  it('ignores IssueAssigned, and keeps issues of an unknown campaign without failing', async () => {
    const campaignId = await newCampaign('Assigned');
    const base = { orgId, campaignId };
    const assigned = await publishIssueEvent(svc, 'IssueAssigned', {
      issueId: randomUUID(),
      ...base,
      title: 'x',
      assigneeName: 'Ada',
      revision: 2,
    });
    const unknownCampaign = MISSING_ID;
    const orphan = issueCreated({ orgId, campaignId: unknownCampaign, severity: 'Critical' });
    const orphanEvent = await publishIssueEvent(svc, 'IssueCreated', orphan);
    await processed([assigned.msgID, orphanEvent.msgID]);
    expect(await verdictOf(campaignId)).toEqual({ readinessLevel: 'ReadyToLaunch', gate: 'cleared' });
    const kept = await svc.db.selectFrom('issue_projection').selectAll().where('issue_id', '=', orphan.issueId).executeTakeFirst();
    expect(kept).toMatchObject({ campaign_id: unknownCampaign, severity: 'Critical', status: 'New', revision: 1 });
  });
});

describe('concurrency', () => {
  it('ends with the right verdict when many events for one campaign are handled at once', async () => {
    const campaignId = await newCampaign('Busy campaign');
    const base = { orgId, campaignId };
    const issues = Array.from({ length: 12 }, (_, i) => issueCreated({ ...base, severity: i % 3 === 0 ? 'Critical' : 'High' }));
    await Promise.all(issues.map((e) => publishIssueEvent(svc, 'IssueCreated', e)));
    await expectVerdict(campaignId, 'DoNotLaunch', 'not-cleared');
    // Close them all at once, but one High issue only goes to Fixed (still open).
    await Promise.all(
      issues.map((e, i) =>
        publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ ...base, issueId: e.issueId, severity: e.severity, from: 'New', to: i === 1 ? 'Fixed' : 'Closed', revision: 2 })),
      ),
    );
    await expectVerdict(campaignId, 'AtRisk', 'not-cleared');
    await expectStatsMatchProjection(campaignId);
  });

  it('keeps the per-campaign counts equal to the projection whatever the order and the repeats', async () => {
    const campaignId = await newCampaign('Shuffled campaign');
    const base = { orgId, campaignId };
    const created = Array.from({ length: 8 }, (_, i) => issueCreated({ ...base, severity: i % 2 === 0 ? 'Critical' : 'Low' }));
    const changes = created.flatMap((e, i) => [
      statusChanged({ ...base, issueId: e.issueId, severity: e.severity, from: 'New', to: 'Fixed', revision: 2 }),
      // Status changes without a severity (as a status event may lack it) arriving before the creation.
      statusChanged({ ...base, issueId: e.issueId, severity: i % 3 === 0 ? undefined : e.severity, from: 'Fixed', to: i % 2 === 0 ? 'Closed' : 'RetestFailed', revision: 3 }),
    ]);
    const all: Array<['IssueCreated' | 'IssueStatusChanged', (typeof created)[number] | (typeof changes)[number]]> = [
      ...changes.map((e) => ['IssueStatusChanged', e] as ['IssueStatusChanged', typeof e]),
      ...created.map((e) => ['IssueCreated', e] as ['IssueCreated', typeof e]),
    ];
    // Newest first, every event twice (a different event id each time: redelivery by the producer).
    await Promise.all([...all, ...all].map(([kind, e]) => publishIssueEvent(svc, kind as 'IssueCreated', e as never)));
    await expectVerdict(campaignId, 'ReadyWithIssues', 'cleared');
    await expectStatsMatchProjection(campaignId);
  });
});

describe('batches', () => {
  /** An issue event as the consumer hands it over, without the stream (the handler is called directly). */
  function consumed<K extends 'IssueCreated' | 'IssueStatusChanged'>(kind: K, init: DomainEventInit<K>, seq: number): ConsumedEvent {
    const encoded = encodeEvent(createEvent(kind, init), svc.prefix);
    return { id: randomUUID(), subject: encoded.subject, type: encoded.type, orgId, payload: encoded.payload, deliveryCount: 1, redelivered: false, streamSequence: seq };
  }
  const reportVersion = async (campaignId: string) =>
    (await svc.db.selectFrom('campaigns').select(['report_version', 'readiness_level']).where('id', '=', campaignId).executeTakeFirstOrThrow());

  it('applies a batch spanning campaigns with one recompute, so one report version at most, per campaign', async () => {
    const a = await newCampaign('Batch A');
    const b = await newCampaign('Batch B');
    const registry = new Registry();
    const handle = readinessBatchHandler({ events: { subjectPrefix: svc.prefix }, logger: createLogger('campaign-test', { level: 'silent' }), metrics: campaignMetrics(registry) });
    const lowA = issueCreated({ orgId, campaignId: a, severity: 'Low' });
    const highA = issueCreated({ orgId, campaignId: a, severity: 'High' });
    const lowB = issueCreated({ orgId, campaignId: b, severity: 'Low' });
    const batch = [
      consumed('IssueCreated', lowB, 1),
      consumed('IssueCreated', lowA, 2),
      consumed('IssueCreated', highA, 3),
      // Later in stream order, so it applies after the creation it follows.
      consumed('IssueStatusChanged', statusChanged({ orgId, campaignId: a, issueId: highA.issueId, severity: 'High', from: 'New', to: 'Closed', revision: 2 }), 4),
      // A repeat of a stale revision changes nothing.
      consumed('IssueCreated', highA, 5),
    ];
    await svc.db.transaction().execute((trx) => handle(batch, trx));
    // One event at a time, A would have gone through versions 2 (Low), 3 (AtRisk) and 4 (High closed).
    expect(await reportVersion(a)).toEqual({ report_version: 2, readiness_level: 'ReadyWithIssues' });
    expect(await reportVersion(b)).toEqual({ report_version: 2, readiness_level: 'ReadyWithIssues' });
    const recomputed = (await registry.getSingleMetric('campaign_readiness_recomputed_total')?.get())?.values ?? [];
    expect(recomputed.reduce((n, v) => n + v.value, 0)).toBe(2);
    await expectStatsMatchProjection(a);
    await expectStatsMatchProjection(b);

    // The same events again (as after a rolled-back batch): nothing changes, nothing is recomputed.
    await svc.db.transaction().execute((trx) => handle(batch, trx));
    expect(await reportVersion(a)).toEqual({ report_version: 2, readiness_level: 'ReadyWithIssues' });
    expect((await registry.getSingleMetric('campaign_readiness_recomputed_total')?.get())?.values.reduce((n, v) => n + v.value, 0)).toBe(2);
  });

  it('projects several events of one issue in one batch as their newest state, with the severity and e-mail of older ones', async () => {
    const campaignId = await newCampaign('Batch merge');
    const handle = readinessBatchHandler({ events: { subjectPrefix: svc.prefix }, logger: createLogger('campaign-test', { level: 'silent' }), metrics: campaignMetrics(new Registry()) });
    const created = { ...issueCreated({ orgId, campaignId, severity: 'Critical' }), testerEmail: 'tess@example.com' };
    const issueId = created.issueId;
    const other = issueCreated({ orgId, campaignId, severity: 'Low' });
    const batch = [
      // Newest first and without a severity; the id spelt in capitals once (the same uuid).
      consumed('IssueStatusChanged', statusChanged({ orgId, campaignId, issueId: issueId.toUpperCase(), from: 'InProgress', to: 'RetestFailed', revision: 3 }), 1),
      consumed('IssueCreated', created, 2),
      consumed('IssueStatusChanged', statusChanged({ orgId, campaignId, issueId, severity: 'Critical', from: 'New', to: 'InProgress', revision: 2 }), 3),
      consumed('IssueCreated', other, 4),
    ];
    await svc.db.transaction().execute((trx) => handle(batch, trx));
    const rows = await svc.db.selectFrom('issue_projection').select(['issue_id', 'severity', 'status', 'revision', 'tester_email']).where('campaign_id', '=', campaignId).orderBy('revision', 'desc').execute();
    expect(rows).toEqual([
      { issue_id: issueId, severity: 'Critical', status: 'RetestFailed', revision: 3, tester_email: 'tess@example.com' },
      { issue_id: other.issueId, severity: 'Low', status: 'New', revision: 1, tester_email: null },
    ]);
    expect(await reportVersion(campaignId)).toEqual({ report_version: 2, readiness_level: 'DoNotLaunch' });
    await expectStatsMatchProjection(campaignId);
  });

  it('lets parallel batches over the same campaigns, in opposite stream orders, both commit (one lock order)', async () => {
    const a = await newCampaign('Parallel A');
    const b = await newCampaign('Parallel B');
    const handle = readinessBatchHandler({ events: { subjectPrefix: svc.prefix }, logger: createLogger('campaign-test', { level: 'silent' }), metrics: campaignMetrics(new Registry()) });
    const rounds = 10;
    for (let round = 0; round < rounds; round += 1) {
      const batchOf = (first: string, second: string) => [
        consumed('IssueCreated', issueCreated({ orgId, campaignId: first, severity: 'Low' }), 1),
        consumed('IssueCreated', issueCreated({ orgId, campaignId: second, severity: 'Low' }), 2),
      ];
      // A deadlock would fail one of them (40P01).
      await Promise.all([svc.db.transaction().execute((trx) => handle(batchOf(a, b), trx)), svc.db.transaction().execute((trx) => handle(batchOf(b, a), trx))]);
    }
    for (const id of [a, b]) {
      await expectStatsMatchProjection(id);
      const { rows } = await sql<{ open_count: number }>`select open_count from campaign_issue_stats where campaign_id = ${id}`.execute(svc.db);
      expect(rows[0]?.open_count).toBe(2 * rounds);
    }
  });
});

/** The consumer's per-campaign statistics are what aggregating the projection gives. */
async function expectStatsMatchProjection(campaignId: string): Promise<void> {
  await eventually(async () => {
    const { rows } = await sql<{ same: boolean }>`
      with fresh as (
        select coalesce(jsonb_object_agg(k, n), '{}'::jsonb) as counts from (
          select coalesce(severity, '') || '/' || status as k, count(*) as n from issue_projection where campaign_id = ${campaignId} group by 1) g
      ), open as (
        select count(*)::int as n,
          coalesce(bit_xor(('x' || substr(md5(issue_id::text), 1, 16))::bit(64)::bigint), 0) as hi,
          coalesce(bit_xor(('x' || substr(md5(issue_id::text), 17, 16))::bit(64)::bigint), 0) as lo
        from issue_projection where campaign_id = ${campaignId} and status not in ('Closed', 'WontFix', 'Duplicate', 'RetestFixed')
      )
      select s.counts = fresh.counts and s.open_count = open.n and s.open_hash_hi = open.hi and s.open_hash_lo = open.lo as same
      from campaign_issue_stats s, fresh, open where s.campaign_id = ${campaignId}`.execute(svc.db);
    expect(rows[0]?.same).toBe(true);
  });
}

describe('launch policy (admin)', () => {
  const DEFAULT = { doNotLaunch: { minSeverity: 'Critical', maxOpen: 0 }, atRisk: { minSeverity: 'High', maxOpen: 0 } };

  it('GET answers the default policy, and 404 for a missing or malformed campaign', async () => {
    const campaignId = await newCampaign('Default policy');
    expect(await json(await svc.get(`/admin/v1/campaigns/${campaignId}/policy`, admin), 200)).toEqual(DEFAULT);
    await problem(await svc.get(`/admin/v1/campaigns/${MISSING_ID}/policy`, admin), 404);
    await problem(await svc.get(`/admin/v1/campaigns/not-a-uuid/policy`, admin), 404);
  });

  it('PUT replaces the policy and changes the verdict at once', async () => {
    const campaignId = await newCampaign('Stricter policy');
    const base = { orgId, campaignId };
    const medium = issueCreated({ ...base, severity: 'Medium' });
    const criticals = [issueCreated({ ...base, severity: 'Critical' }), issueCreated({ ...base, severity: 'Critical' })];
    const ids: string[] = [];
    for (const e of [medium, ...criticals]) ids.push((await publishIssueEvent(svc, 'IssueCreated', e)).msgID);
    await processed(ids);
    await expectStatsMatchProjection(campaignId);
    await expectVerdict(campaignId, 'DoNotLaunch', 'not-cleared');

    // Up to two open criticals tolerated; Medium and worse is "at risk" beyond 2.
    const lenient = { doNotLaunch: { minSeverity: 'Critical', maxOpen: 2 }, atRisk: { minSeverity: 'Medium', maxOpen: 2 } };
    expect(await json(await svc.put(`/admin/v1/campaigns/${campaignId}/policy`, lenient, admin), 200)).toEqual(lenient);
    expect(await verdictOf(campaignId)).toEqual({ readinessLevel: 'AtRisk', gate: 'not-cleared' });
    expect(await json(await svc.get(`/admin/v1/campaigns/${campaignId}/policy`, admin), 200)).toEqual(lenient);

    const laxer = { doNotLaunch: { minSeverity: 'Critical', maxOpen: 5 }, atRisk: { minSeverity: 'Medium', maxOpen: 3 } };
    await json(await svc.put(`/admin/v1/campaigns/${campaignId}/policy`, laxer, admin), 200);
    expect(await verdictOf(campaignId)).toEqual({ readinessLevel: 'ReadyWithIssues', gate: 'cleared' });

    // Later events are judged by the campaign's policy.
    await publishIssueEvent(svc, 'IssueCreated', issueCreated({ ...base, severity: 'Low' }));
    await publishIssueEvent(svc, 'IssueCreated', issueCreated({ ...base, severity: 'High' }));
    await expectVerdict(campaignId, 'AtRisk', 'not-cleared');

    await json(await svc.put(`/admin/v1/campaigns/${campaignId}/policy`, DEFAULT, admin), 200);
    expect(await verdictOf(campaignId)).toEqual({ readinessLevel: 'DoNotLaunch', gate: 'not-cleared' });
  });

  it('PUT refuses bad policies with 422 and a field map, and a missing campaign with 404', async () => {
    const campaignId = await newCampaign('Bad policies');
    const put = (body: unknown) => svc.put(`/admin/v1/campaigns/${campaignId}/policy`, body, admin);

    const inverted = await problem(await put({ doNotLaunch: { minSeverity: 'High', maxOpen: 0 }, atRisk: { minSeverity: 'Critical', maxOpen: 0 } }), 422);
    expect(Object.keys(inverted.errors)).toEqual(['atRisk.minSeverity']);
    // A fault of the shape and the inverted thresholds: both in one answer.
    const both = await problem(await put({ doNotLaunch: { minSeverity: 'High', maxOpen: -1 }, atRisk: { minSeverity: 'Critical', maxOpen: 0 } }), 422);
    expect(Object.keys(both.errors).sort()).toEqual(['atRisk.minSeverity', 'doNotLaunch.maxOpen']);

    const cases: Array<[unknown, string]> = [
      [{ doNotLaunch: DEFAULT.doNotLaunch }, 'atRisk'],
      [{ ...DEFAULT, extra: 1 }, 'extra'],
      [{ ...DEFAULT, atRisk: { minSeverity: 'Severe', maxOpen: 0 } }, 'atRisk.minSeverity'],
      [{ ...DEFAULT, atRisk: { minSeverity: 'High', maxOpen: -1 } }, 'atRisk.maxOpen'],
      [{ ...DEFAULT, doNotLaunch: { minSeverity: 'Critical', maxOpen: 1.5 } }, 'doNotLaunch.maxOpen'],
      [{ ...DEFAULT, doNotLaunch: { minSeverity: 'Critical', maxOpen: '1' } }, 'doNotLaunch.maxOpen'],
      [{ ...DEFAULT, doNotLaunch: { minSeverity: 'Critical' } }, 'doNotLaunch.maxOpen'],
      [{ ...DEFAULT, doNotLaunch: { minSeverity: 'Critical', maxOpen: 0, x: true } }, 'doNotLaunch.x'],
    ];
    for (const [body, field] of cases) {
      const p = await problem(await put(body), 422);
      expect(Object.keys(p.errors), JSON.stringify(body)).toContain(field);
    }
    // Nothing was stored.
    expect(await json(await svc.get(`/admin/v1/campaigns/${campaignId}/policy`, admin), 200)).toEqual(DEFAULT);
    await problem(await svc.put(`/admin/v1/campaigns/${MISSING_ID}/policy`, DEFAULT, admin), 404);
  });
});
