import type { ServiceTokens } from '@preflight/service-auth';
import { internalClient } from '@preflight/service-kit';
import type { CampaignEntry } from '../storage/campaign-entries.ts';

/** The campaign service could not give an answer we can use (down, timing out, or garbled). */
export class CampaignServiceUnavailable extends Error {
  override readonly name = 'CampaignServiceUnavailable';
}

export interface CampaignClient {
  /** The campaign, or undefined when the campaign service says it does not exist. */
  fetchCampaign(campaignId: string): Promise<CampaignEntry | undefined>;
  close(): Promise<void>;
}

// A read-through sits in front of a user's request: fail fast rather than hold it.
const CONNECT_TIMEOUT_MS = 2_000;
const RESPONSE_TIMEOUT_MS = 5_000;

export function createCampaignClient(baseUrl: string, tokens: Pick<ServiceTokens, 'authorization'>): CampaignClient {
  const campaign = internalClient('campaign', { baseUrl, tokens, connectTimeoutMs: CONNECT_TIMEOUT_MS, timeoutMs: RESPONSE_TIMEOUT_MS, unavailable: CampaignServiceUnavailable });
  return {
    async fetchCampaign(campaignId) {
      const c = await campaign.found('internalGetCampaign', { params: { id: campaignId } });
      if (!c) return undefined;
      return {
        campaignId: c.id.toLowerCase(),
        orgId: c.orgId.toLowerCase(),
        name: c.name,
        status: c.status,
        siteId: c.siteId.toLowerCase(),
        siteName: c.siteName,
        createdAt: new Date(c.createdAt),
      };
    },
    close: () => campaign.close(),
  };
}
