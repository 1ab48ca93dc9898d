import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@preflight/db';
import { eventually } from '@preflight/testing';
import {
  admin,
  createCampaign,
  createSite,
  json,
  MISSING_ID,
  moveCampaign,
  newOrgId,
  problem,
  startTestService,
  type TestService,
} from './harness.ts';

let svc: TestService;
let siteId: string;

beforeAll(async () => {
  svc = await startTestService('campaign_lifecycle');
  siteId = (await createSite(svc, newOrgId())).id;
});
afterAll(() => svc.stop());

/** The shortest way to each status from Draft. */
const PATH_TO: Record<string, string[]> = { Draft: [], Active: ['Active'], Paused: ['Active', 'Paused'], Closed: ['Closed'] };

/** The lifecycle as the operator sees it: from → the targets accepted (every other is 409). */
const ALLOWED: Record<string, string[]> = {
  Draft: ['Active', 'Closed'],
  Active: ['Paused', 'Closed'],
  Paused: ['Active', 'Closed'],
  Closed: [],
};

async function campaignIn(status: string): Promise<string> {
  const { id } = await createCampaign(svc, siteId, `In ${status}`);
  for (const to of PATH_TO[status]!) await json(await moveCampaign(svc, id, to), 200);
  return id;
}

describe('POST /admin/v1/campaigns/:id/status', () => {
  for (const from of ['Draft', 'Active', 'Paused', 'Closed']) {
    for (const to of ['Active', 'Paused', 'Closed']) {
      const allowed = ALLOWED[from]!;
      if (allowed.includes(to)) {
        it(`moves a campaign ${from} → ${to}`, async () => {
          const id = await campaignIn(from);
          const moved = await json(await moveCampaign(svc, id, to, `going ${to}`), 200);
          expect(moved).toMatchObject({ id, status: to, readinessLevel: 'ReadyToLaunch', gate: 'cleared' });
          expect((await json(await svc.get(`/admin/v1/campaigns/${id}`, admin), 200)).status).toBe(to);
        });
      } else {
        it(`refuses ${from} → ${to} with 409`, async () => {
          const id = await campaignIn(from);
          const refused = await problem(await moveCampaign(svc, id, to), 409);
          const targets = allowed.length ? allowed.join(', ') : 'none';
          expect(refused.detail).toBe(`Campaign is ${from}; it cannot move to ${to}. Allowed: ${targets}.`);
          expect(refused).toMatchObject({ title: 'Conflict.', currentStatus: from, allowedTransitions: allowed });
          expect((await json(await svc.get(`/admin/v1/campaigns/${id}`, admin), 200)).status).toBe(from);
        });
      }
    }
  }

  it('records every move with its reason in the campaign’s history', async () => {
    const { id } = await createCampaign(svc, siteId, 'Storied');
    await json(await moveCampaign(svc, id, 'Active', 'go'), 200);
    await json(await moveCampaign(svc, id, 'Paused'), 200);
    await problem(await moveCampaign(svc, id, 'Paused'), 409);
    await json(await moveCampaign(svc, id, 'Closed', '  wrapped up  '), 200);
    const history = await svc.db
      .selectFrom('campaign_status_history')
      .select(['from_status', 'to_status', 'reason'])
      .where('campaign_id', '=', id)
      .orderBy('occurred_at')
      .execute();
    expect(history).toEqual([
      { from_status: 'Draft', to_status: 'Active', reason: 'go' },
      { from_status: 'Active', to_status: 'Paused', reason: null },
      { from_status: 'Paused', to_status: 'Closed', reason: 'wrapped up' },
    ]);
  });

  it('lets exactly one of several concurrent moves from the same state win', async () => {
    const { id } = await createCampaign(svc, siteId, 'Contended');
    const contenders = 6;
    // Hold the campaign's row so every request is in flight, past its own read of the status,
    // before any of them can commit: the race happens every run, not by luck of scheduling.
    const responses = await svc.db.transaction().execute(async (trx) => {
      await sql`select 1 from campaigns where id = ${id} for update`.execute(trx);
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      const holder = rows[0]!.pid;
      const inFlight = Array.from({ length: contenders }, () => moveCampaign(svc, id, 'Active'));
      await eventually(async () => {
        // Waiters queue behind one another on a row lock, so follow the chain from the holder.
        const blocked = await sql<{ n: number }>`
          with recursive waiting(pid) as (
            select pid from pg_stat_activity where ${holder} = any(pg_blocking_pids(pid))
            union
            select a.pid from pg_stat_activity a join waiting w on w.pid = any(pg_blocking_pids(a.pid))
          )
          select count(*)::int as n from waiting`.execute(svc.db);
        expect(blocked.rows[0]!.n).toBe(contenders);
      });
      return inFlight;
    });
    const settled = await Promise.all(responses);
    expect(settled.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const res of settled.filter((r) => r.status === 409)) {
      expect(await problem(res, 409)).toMatchObject({ currentStatus: 'Active', allowedTransitions: ['Paused', 'Closed'] });
    }
    const history = await svc.db.selectFrom('campaign_status_history').select('to_status').where('campaign_id', '=', id).execute();
    expect(history).toEqual([{ to_status: 'Active' }]);
  });

  it('answers 422 for a target outside Active, Paused and Closed, or a bad body', async () => {
    const { id } = await createCampaign(svc, siteId, 'Validated');
    const cases: Array<[unknown, string[]]> = [
      [{ to: 'Draft' }, ['to']],
      [{ to: 'active' }, ['to']],
      [{}, ['to']],
      [{ to: 'Active', reason: 7 }, ['reason']],
      [{ to: 'Active', when: 'now' }, ['when']],
    ];
    for (const [body, fields] of cases) {
      const res = await problem(await svc.post(`/admin/v1/campaigns/${id}/status`, body, admin), 422);
      expect(Object.keys(res.errors), JSON.stringify(body)).toEqual(fields);
    }
    const draft = await problem(await svc.post(`/admin/v1/campaigns/${id}/status`, { to: 'Draft' }, admin), 422);
    expect(draft.errors.to).toEqual(['Must be one of: Active, Paused, Closed.']);
    expect((await json(await svc.get(`/admin/v1/campaigns/${id}`, admin), 200)).status).toBe('Draft');
  });

  it('answers 404 for a missing or malformed campaign id', async () => {
    await problem(await moveCampaign(svc, MISSING_ID, 'Active'), 404);
    await problem(await moveCampaign(svc, 'campaign-1', 'Active'), 404);
  });
});
