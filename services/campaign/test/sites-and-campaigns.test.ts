import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicCampaignSchema } from '@preflight/contract';
import {
  admin,
  apiKeyOf,
  createCampaign,
  createSite,
  json,
  MISSING_ID,
  newOrgId,
  problem,
  PUBLIC_CAMPAIGN_FIELDS,
  startTestService,
  type TestService,
} from './harness.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService('campaign_admin');
});
afterAll(() => svc.stop());

describe('POST and GET /admin/v1/organizations/:orgId/sites', () => {
  it('creates a site with a trimmed name and lists the organisation’s sites newest first', async () => {
    const orgId = newOrgId();
    const first = await json(await svc.post(`/admin/v1/organizations/${orgId}/sites`, { name: '  Storefront  ', url: 'https://shop.example.com/' }, admin), 201);
    expect(Object.keys(first).sort()).toEqual(['createdAt', 'id', 'name', 'url']);
    expect(first).toMatchObject({ name: 'Storefront', url: 'https://shop.example.com/' });
    expect(new Date(first.createdAt).toISOString()).toBe(first.createdAt);

    const second = await json(await svc.post(`/admin/v1/organizations/${orgId}/sites`, { name: 'Blog' }, admin), 201);
    expect(second.url).toBeNull();
    await createSite(svc, newOrgId(), 'Someone else’s site');

    const listed = await json(await svc.get(`/admin/v1/organizations/${orgId}/sites`, admin), 200);
    expect(listed).toEqual([second, first]);
  });

  it('answers 422 per field for a bad site', async () => {
    const path = `/admin/v1/organizations/${newOrgId()}/sites`;
    const cases: Array<[unknown, string[]]> = [
      [{}, ['name']],
      [{ name: '   ' }, ['name']],
      [{ name: 'x'.repeat(201) }, ['name']],
      [{ name: 'Shop', url: 'ftp://shop.example.com' }, ['url']],
      [{ name: 'Shop', url: 'shop.example.com' }, ['url']],
      [{ name: 42, colour: 'red' }, ['colour', 'name']],
    ];
    for (const [body, fields] of cases) {
      const res = await problem(await svc.post(path, body, admin), 422);
      expect(Object.keys(res.errors).sort(), JSON.stringify(body)).toEqual(fields);
    }
    expect(await json(await svc.get(path, admin), 200)).toEqual([]);
  });

  it('answers 404 for a malformed organisation id', async () => {
    await problem(await svc.get('/admin/v1/organizations/not-a-uuid/sites', admin), 404);
    await problem(await svc.post('/admin/v1/organizations/not-a-uuid/sites', { name: 'Shop' }, admin), 404);
  });
});

describe('POST /admin/v1/sites/:siteId/campaigns', () => {
  it('creates a Draft campaign in the public shape, every field present', async () => {
    const site = await createSite(svc, newOrgId(), 'Storefront');
    const res = await svc.post(`/admin/v1/sites/${site.id}/campaigns`, { name: '  Spring launch ' }, admin);
    const campaign = await json(res, 201);
    expect(Object.keys(campaign).sort()).toEqual(PUBLIC_CAMPAIGN_FIELDS);
    PublicCampaignSchema.strict().parse(campaign);
    expect(campaign).toMatchObject({
      name: 'Spring launch',
      status: 'Draft',
      siteId: site.id,
      siteName: 'Storefront',
      readinessLevel: 'ReadyToLaunch',
      gate: 'cleared',
    });
  });

  it('answers 404 for an unknown or malformed site', async () => {
    const unknown = await problem(await svc.post(`/admin/v1/sites/${MISSING_ID}/campaigns`, { name: 'Launch' }, admin), 404);
    expect(unknown.detail).toContain(MISSING_ID);
    await problem(await svc.post('/admin/v1/sites/12345/campaigns', { name: 'Launch' }, admin), 404);
  });

  it('answers 422 for a missing, empty or over-long name', async () => {
    const site = await createSite(svc, newOrgId());
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(201) }, { name: null }]) {
      const res = await problem(await svc.post(`/admin/v1/sites/${site.id}/campaigns`, body, admin), 422);
      expect(Object.keys(res.errors)).toEqual(['name']);
    }
  });
});

describe('GET /admin/v1/campaigns/:id', () => {
  it('returns the campaign of any organisation', async () => {
    const site = await createSite(svc, newOrgId());
    const created = await createCampaign(svc, site.id);
    expect(await json(await svc.get(`/admin/v1/campaigns/${created.id}`, admin), 200)).toEqual(created);
  });

  it('answers 404 for a missing or malformed id', async () => {
    await problem(await svc.get(`/admin/v1/campaigns/${MISSING_ID}`, admin), 404);
    await problem(await svc.get('/admin/v1/campaigns/nope', admin), 404);
  });
});

describe('GET /admin/v1/organizations/:orgId/campaigns', () => {
  it('lists one organisation’s campaigns newest first, filtered by status', async () => {
    const orgId = newOrgId();
    const site = await createSite(svc, orgId);
    const a = await createCampaign(svc, site.id, 'A');
    const b = await createCampaign(svc, site.id, 'B');
    const c = await createCampaign(svc, site.id, 'C');
    await createCampaign(svc, (await createSite(svc, newOrgId())).id, 'Elsewhere');
    const launched = await json(await svc.post(`/admin/v1/campaigns/${b.id}/status`, { to: 'Active' }, admin), 200);

    const all = await json(await svc.get(`/admin/v1/organizations/${orgId}/campaigns`, admin), 200);
    expect(all).toEqual([c, launched, a]);
    const drafts = await json(await svc.get(`/admin/v1/organizations/${orgId}/campaigns?status=Draft`, admin), 200);
    expect(drafts.map((x: { name: string }) => x.name)).toEqual(['C', 'A']);
  });

  it('answers 400 for an unknown status', async () => {
    const res = await problem(await svc.get(`/admin/v1/organizations/${newOrgId()}/campaigns?status=Launched`, admin), 400);
    expect(Object.keys(res.errors)).toEqual(['status']);
  });
});

describe('admin routes and callers', () => {
  it('refuses API keys (403) and requests without a caller (401)', async () => {
    const orgId = newOrgId();
    const site = await createSite(svc, orgId);
    const key = apiKeyOf(orgId);
    await problem(await svc.get(`/admin/v1/organizations/${orgId}/sites`, key), 403);
    await problem(await svc.post(`/admin/v1/sites/${site.id}/campaigns`, { name: 'Sneaky' }, key), 403);
    await problem(await svc.get(`/admin/v1/organizations/${orgId}/campaigns`), 401);
    expect(await json(await svc.get(`/admin/v1/organizations/${orgId}/campaigns`, admin), 200)).toEqual([]);
  });
});
