import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicCampaignSchema } from '@preflight/contract';
import {
  admin,
  apiKeyOf,
  createCampaign,
  createSite,
  json,
  MISSING_ID,
  moveCampaign,
  newOrgId,
  problem,
  PUBLIC_CAMPAIGN_FIELDS,
  startTestService,
  type TestService,
} from './harness.ts';

let svc: TestService;
const orgA = newOrgId();
const orgB = newOrgId();
let siteA: { id: string; name: string };
const campaignsA: Array<Record<string, any>> = [];

beforeAll(async () => {
  svc = await startTestService('campaign_public');
  siteA = await createSite(svc, orgA, 'Storefront');
  for (const name of ['Alpha', 'Beta', 'Gamma']) campaignsA.push(await createCampaign(svc, siteA.id, name));
  expect((await moveCampaign(svc, campaignsA[1]!.id, 'Active')).status).toBe(200);
});
afterAll(() => svc.stop());

describe('GET /api/v1/campaigns', () => {
  it('lists the key’s organisation’s campaigns newest first, every field present', async () => {
    const listed = await json(await svc.get('/api/v1/campaigns', apiKeyOf(orgA)), 200);
    expect(listed.map((c: { name: string }) => c.name)).toEqual(['Gamma', 'Beta', 'Alpha']);
    for (const campaign of listed) {
      expect(Object.keys(campaign).sort()).toEqual(PUBLIC_CAMPAIGN_FIELDS);
      PublicCampaignSchema.strict().parse(campaign);
      expect(campaign).toMatchObject({ siteId: siteA.id, siteName: 'Storefront', readinessLevel: 'ReadyToLaunch', gate: 'cleared' });
    }
    expect(listed[1]).toMatchObject({ id: campaignsA[1]!.id, status: 'Active' });
  });

  it('filters by status', async () => {
    const key = apiKeyOf(orgA);
    const drafts = await json(await svc.get('/api/v1/campaigns?status=Draft', key), 200);
    expect(drafts.map((c: { name: string }) => c.name)).toEqual(['Gamma', 'Alpha']);
    const active = await json(await svc.get('/api/v1/campaigns?status=Active', key), 200);
    expect(active.map((c: { name: string }) => c.name)).toEqual(['Beta']);
    expect(await json(await svc.get('/api/v1/campaigns?status=Closed', key), 200)).toEqual([]);
  });

  it('answers 400 naming the parameter for a status outside the enumeration', async () => {
    for (const status of ['draft', 'Open', '']) {
      const res = await problem(await svc.get(`/api/v1/campaigns?status=${status}`, apiKeyOf(orgA)), 400);
      expect(res.errors.status, status).toEqual([expect.stringContaining('Draft, Active, Paused, Closed')]);
    }
  });

  it('shows another organisation none of them', async () => {
    const keyB = apiKeyOf(orgB);
    expect(await json(await svc.get('/api/v1/campaigns', keyB), 200)).toEqual([]);
    const siteB = await createSite(svc, orgB, 'B site');
    const own = await createCampaign(svc, siteB.id, 'B launch');
    expect(await json(await svc.get('/api/v1/campaigns', keyB), 200)).toEqual([own]);
    const seenByA = await json(await svc.get('/api/v1/campaigns', apiKeyOf(orgA)), 200);
    expect(seenByA.map((c: { id: string }) => c.id)).not.toContain(own.id);
  });

  it('answers 401 without an API key, the operator included', async () => {
    await problem(await svc.get('/api/v1/campaigns'), 401);
    await problem(await svc.get('/api/v1/campaigns', admin), 401);
  });
});

describe('GET /internal/v1/campaigns/:id', () => {
  it('describes a campaign of any organisation to other services, without caller headers', async () => {
    const campaign = campaignsA[1]!;
    const body = await json(await svc.get(`/internal/v1/campaigns/${campaign.id}`), 200);
    expect(body).toEqual({
      id: campaign.id,
      orgId: orgA,
      name: 'Beta',
      status: 'Active',
      siteId: siteA.id,
      siteName: 'Storefront',
      createdAt: campaign.createdAt,
    });
  });

  it('answers 404 only for a campaign that does not exist', async () => {
    const missing = await problem(await svc.get(`/internal/v1/campaigns/${MISSING_ID}`), 404);
    expect(missing.detail).toBe(`No campaign with id '${MISSING_ID}' was found.`);
    await problem(await svc.get('/internal/v1/campaigns/not-a-uuid'), 404);
  });
});
