import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalCampaignSchema } from '@preflight/contract';
import { createCampaign, createSite, json, moveCampaign, newOrgId, startTestService, type TestService } from './harness.ts';

/**
 * Provider side of contracts/internal/issue-to-campaign.json: the real internal route answers
 * what the issue service's client parses (libs/contract, internal.ts; docs/development-reference.md,
 * "Internal contracts").
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService('campaign_contract');
});
afterAll(() => svc?.stop());

describe('the campaign service answers what the issue service parses', () => {
  it('GET /internal/v1/campaigns/:id, a draft and an active campaign', async () => {
    const orgId = newOrgId();
    const site = await createSite(svc, orgId);
    const draft = await createCampaign(svc, site.id, 'Draft one');
    const active = await createCampaign(svc, site.id, 'Active one');
    expect((await moveCampaign(svc, active.id, 'Active')).status).toBe(200);
    for (const [campaign, status] of [[draft, 'Draft'], [active, 'Active']] as const) {
      const parsed = InternalCampaignSchema.parse(await json(await svc.get(`/internal/v1/campaigns/${campaign.id}`), 200));
      expect(parsed).toMatchObject({ id: campaign.id, orgId, siteId: site.id, status });
    }
  });
});
