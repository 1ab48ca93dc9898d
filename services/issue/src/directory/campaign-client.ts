import { Agent, request } from 'undici';
import { InternalCampaignSchema, pathOf } from '@preflight/contract';
import { outgoingTraceparent } from '@preflight/http';
import type { ServiceTokens } from '@preflight/service-auth';
import type { CampaignEntry } from '../storage/campaign-entries.ts';

// The campaign service's internal answer: InternalCampaignSchema (libs/contract, internal.ts).

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
  const dispatcher = new Agent({ connect: { timeout: CONNECT_TIMEOUT_MS }, headersTimeout: RESPONSE_TIMEOUT_MS, bodyTimeout: RESPONSE_TIMEOUT_MS });
  const base = baseUrl.replace(/\/+$/, '');

  return {
    async fetchCampaign(campaignId) {
      const traceparent = outgoingTraceparent();
      let res;
      try {
        const authorization = await tokens.authorization('campaign');
        res = await request(`${base}${pathOf('internalGetCampaign', { id: campaignId })}`, {
          dispatcher,
          headers: { accept: 'application/json', authorization, ...(traceparent ? { traceparent } : {}) },
        });
      } catch (err) {
        throw new CampaignServiceUnavailable(`no answer: ${(err as Error).message}`, { cause: err });
      }
      if (res.statusCode === 404) {
        await res.body.dump();
        return undefined;
      }
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw new CampaignServiceUnavailable(`answered ${res.statusCode}`);
      }
      let parsed;
      try {
        parsed = InternalCampaignSchema.safeParse(await res.body.json());
      } catch (err) {
        throw new CampaignServiceUnavailable(`unreadable answer: ${(err as Error).message}`, { cause: err });
      }
      if (!parsed.success) throw new CampaignServiceUnavailable('answered with an unexpected campaign shape');
      const c = parsed.data;
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
    close: () => dispatcher.close(),
  };
}
