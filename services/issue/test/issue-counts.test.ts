import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase, sql, type Database } from '@preflight/db';
import { TEST_DATABASE_URL } from '@preflight/testing';
import type { IssueDatabase } from '../src/storage/schema.ts';
import { asAdmin, asKey, startHarness, type Harness } from './harness.ts';

/**
 * The per-campaign issue counts behind the list's total and its seek (kept by the triggers of migrations/0004):
 * moved by every create and status change, also when they run at once on one campaign.
 */
let h: Harness;
let database: Database<IssueDatabase>;

beforeAll(async () => {
  h = await startHarness({ poolMax: 10 });
  database = createDatabase<IssueDatabase>({ url: TEST_DATABASE_URL, schema: h.schema, poolMax: 1 });
});
afterAll(async () => {
  await database?.close();
  await h?.close();
});

/** The counts table and a count(*) of the issues, both as "severity_rank/status → n" (zero rows left out). */
async function countsAndTruth(campaignId: string) {
  const counts = await sql<{ k: string; n: number }>`
    select severity_rank || '/' || status as k, n from issue_counts where campaign_id = ${campaignId} and n <> 0 order by 1`.execute(database.db);
  const truth = await sql<{ k: string; n: number }>`
    select severity_rank || '/' || status as k, count(*)::integer as n from issues where campaign_id = ${campaignId} group by 1 order by 1`.execute(database.db);
  return { counts: counts.rows, truth: truth.rows };
}

it('keeps the counts equal to the issues through concurrent creates and status changes in both directions', async () => {
  const org = randomUUID();
  const campaign = h.stub.add(org);
  const key = asKey(org);
  const file = (i: number, severity = 'High') =>
    h.call('POST', `/api/v1/campaigns/${campaign.id}/issues`, { as: key, body: { title: `Issue ${i}`, severity, type: 'Bug' } });
  const move = (id: string, to: string) => h.call('POST', `/admin/v1/issues/${id}/status`, { as: asAdmin, body: { to } });
  const ids = async (n: number, from: number) => (await Promise.all(Array.from({ length: n }, (_, i) => file(from + i)))).map((r) => r.body.id as string);

  // Three groups of High issues: Acknowledged, InProgress and New.
  const acknowledged = await ids(10, 0);
  const inProgress = await ids(10, 10);
  const fresh = await ids(10, 20);
  for (const id of acknowledged) expect((await move(id, 'Acknowledged')).status).toBe(200);
  for (const id of inProgress) expect((await move(id, 'InProgress')).status).toBe(200);

  // At once, all on the rows of severity High: Acknowledged ⇄ InProgress crosswise (opposite lock
  // orders if each change took its rows in its own from/to order), New → Acknowledged, and creates.
  const severities = ['Critical', 'High', 'Medium', 'High'];
  const replies = await Promise.all([
    ...acknowledged.map((id) => move(id, 'InProgress')),
    ...inProgress.map((id) => move(id, 'Acknowledged')),
    ...fresh.map((id) => move(id, 'Acknowledged')),
    ...Array.from({ length: 40 }, (_, i) => file(100 + i, severities[i % severities.length])),
  ]);
  expect(replies.map((r) => r.status).sort()).toEqual([...Array(30).fill(200), ...Array(40).fill(201)]);

  const { counts, truth } = await countsAndTruth(campaign.id);
  expect(counts).toEqual(truth);
  expect(truth).toEqual([
    { k: '0/New', n: 10 },
    { k: '1/Acknowledged', n: 20 },
    { k: '1/InProgress', n: 10 },
    { k: '1/New', n: 20 },
    { k: '2/New', n: 10 },
  ]);

  // What a user sees: the totals of the list and its filters.
  const total = async (query: string) => (await h.call('GET', `/api/v1/campaigns/${campaign.id}/issues?${query}`, { as: key })).body.total;
  expect(await total('')).toBe(70);
  expect(await total('status=Acknowledged')).toBe(20);
  expect(await total('severity=High')).toBe(50);
  expect(await total('status=New&severity=High')).toBe(20);
  expect(await total('status=Closed')).toBe(0);
});

it('counts a refused change nowhere', async () => {
  const org = randomUUID();
  const campaign = h.stub.add(org);
  const filed = await h.call('POST', `/api/v1/campaigns/${campaign.id}/issues`, { as: asKey(org), body: { title: 'Once', severity: 'Low', type: 'Bug' } });
  expect((await h.call('POST', `/admin/v1/issues/${filed.body.id}/status`, { as: asAdmin, body: { to: 'RetestFixed' } })).status).toBe(409);
  const { counts, truth } = await countsAndTruth(campaign.id);
  expect(counts).toEqual([{ k: '3/New', n: 1 }]);
  expect(counts).toEqual(truth);
});

it('keeps the counts for writers that know nothing of them, as a replica of the previous version during an upgrade', async () => {
  const org = randomUUID();
  const campaign = h.stub.add(org);
  const key = asKey(org);
  const filed = await h.call('POST', `/api/v1/campaigns/${campaign.id}/issues`, { as: key, body: { title: 'Through the service', severity: 'High', type: 'Bug' } });
  expect(filed.status).toBe(201);
  // Plain statements on the issues table alone: a batch insert, a status change, a severity edit, a deletion.
  await sql`
    insert into issues (org_id, campaign_id, seq_number, title, severity, severity_rank, type, status, reporter)
    select ${org}::uuid, ${campaign.id}::uuid, n, 'Old replica ' || n, 'Low', 3, 'Bug', 'New', 'test' from generate_series(2, 6) as n`.execute(database.db);
  await sql`update issues set status = 'Acknowledged' where campaign_id = ${campaign.id} and seq_number in (2, 3)`.execute(database.db);
  await sql`update issues set severity = 'Critical', severity_rank = 0 where campaign_id = ${campaign.id} and seq_number = 4`.execute(database.db);
  await sql`delete from issues where campaign_id = ${campaign.id} and seq_number = 5`.execute(database.db);

  const { counts, truth } = await countsAndTruth(campaign.id);
  expect(counts).toEqual(truth);
  expect(truth).toEqual([
    { k: '0/New', n: 1 },
    { k: '1/New', n: 1 },
    { k: '3/Acknowledged', n: 2 },
    { k: '3/New', n: 1 },
  ]);
  expect((await h.call('GET', `/api/v1/campaigns/${campaign.id}/issues?status=Acknowledged`, { as: key })).body.total).toBe(2);
});
