import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicCampaignSchema } from '@preflight/contract';
import { sql } from '@preflight/db';
import { listCampaignsJson, selectCampaigns } from '../src/storage/campaigns.ts';
import { toPublicCampaign } from '../src/views/campaign-view.ts';
import { newOrgId, startTestService, type TestService } from './harness.ts';

/**
 * The campaign list is serialised by Postgres (storage/campaigns.ts); what it sends must be
 * exactly what the view makes of the same rows, for any text a name may hold and any date.
 */

let svc: TestService;
const org = newOrgId();
const NAMES = ['Plain', 'Quote " and backslash \\', 'Line\nbreak\tand tab', 'Control \u0001\u001f', 'Émoji 🚀 ünïcode', '</script><b>', "Apostrophe's"];

beforeAll(async () => {
  svc = await startTestService('campaign_list_json');
  const site = (await sql<{ id: string }>`insert into sites (org_id, name) values (${org}, ${'Shop "North" \\ 🏪'}) returning id`.execute(svc.db)).rows[0]!.id;
  for (const [i, name] of NAMES.entries()) {
    await sql`
      insert into campaigns (org_id, site_id, name, status, readiness_level, gate, created_at)
      values (${org}, ${site}, ${name}, ${i % 2 === 0 ? 'Active' : 'Draft'}, ${i % 3 === 0 ? 'ReadyToLaunch' : 'AtRisk'}, ${i % 3 === 0 ? 'cleared' : 'not-cleared'},
        timestamptz '2026-11-27 10:00:00.123999+00' - ${i} * interval '1 second' + ${i * 7} * interval '1 microsecond')`.execute(svc.db);
  }
  // Two at the same instant: the id decides their order.
  await sql`insert into campaigns (org_id, site_id, name, status, readiness_level, gate, created_at) select ${org}, ${site}, 'Twin ' || g, 'Draft', 'DoNotLaunch', 'not-cleared', timestamptz '2020-01-01 00:00:00+00' from generate_series(1, 2) g`.execute(svc.db);
});
afterAll(() => svc?.stop());

const viewOf = async (status?: 'Active' | 'Draft') => {
  let query = selectCampaigns(svc.db).where('campaigns.org_id', '=', org);
  if (status) query = query.where('campaigns.status', '=', status);
  return (await query.orderBy('campaigns.created_at', 'desc').orderBy('campaigns.id', 'desc').execute()).map(toPublicCampaign);
};

describe('the campaign list as JSON text', () => {
  it('is the view of the rows, newest first, whatever the names hold', async () => {
    const text = await listCampaignsJson(svc.db, org);
    const listed = JSON.parse(text) as unknown[];
    expect(listed).toEqual(await viewOf());
    expect(listed).toHaveLength(NAMES.length + 2);
    for (const c of listed) PublicCampaignSchema.strict().parse(c);
    // Milliseconds, cut as the driver cuts them: .123999 is .123.
    expect(listed[0]).toMatchObject({ name: 'Plain', createdAt: '2026-11-27T10:00:00.123Z', readinessLevel: 'ReadyToLaunch', gate: 'cleared' });
    expect(text).toBe(JSON.stringify(await viewOf()));
  });

  it('filters by status, and is an empty array for an organisation without campaigns', async () => {
    expect(JSON.parse(await listCampaignsJson(svc.db, org, { status: 'Active' }))).toEqual(await viewOf('Active'));
    expect(await listCampaignsJson(svc.db, org, { status: 'Closed' })).toBe('[]');
    expect(await listCampaignsJson(svc.db, newOrgId())).toBe('[]');
  });
});
