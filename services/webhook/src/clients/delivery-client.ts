import type { EndpointStats } from '@preflight/contract';
import type { ServiceTokens } from '@preflight/service-auth';
import { internalClient } from '@preflight/service-kit';

/** The delivery service takes at most this many ids per call. */
export const STATS_IDS_PER_CALL = 500;

/** The settings page waits for the numbers no longer than this in all; it then shows the list without them. */
const TIMEOUT_MS = 2_000;

/** The delivery service gave no usable answer (down, too slow, or garbled). */
export class DeliveryServiceUnavailable extends Error {
  override readonly name = 'DeliveryServiceUnavailable';
}

export interface DeliveryClient {
  /** Stats by endpoint id (as asked); throws DeliveryServiceUnavailable when they cannot be had. */
  endpointStats(ids: readonly string[]): Promise<Map<string, EndpointStats>>;
  close(): Promise<void>;
}

export function createDeliveryClient(baseUrl: string, tokens: Pick<ServiceTokens, 'authorization'>): DeliveryClient {
  const delivery = internalClient('delivery', { baseUrl, tokens, timeoutMs: TIMEOUT_MS, deadlineMs: TIMEOUT_MS, unavailable: DeliveryServiceUnavailable });

  async function statsOf(ids: readonly string[]): Promise<Record<string, EndpointStats>> {
    const answer = await delivery.call('internalEndpointStats', { body: { ids: [...ids] } });
    if (!answer.ok) throw new DeliveryServiceUnavailable(`the delivery service answered ${answer.status} to endpoint stats`);
    return answer.body.stats;
  }

  return {
    async endpointStats(ids) {
      const chunks: Array<readonly string[]> = [];
      for (let i = 0; i < ids.length; i += STATS_IDS_PER_CALL) chunks.push(ids.slice(i, i + STATS_IDS_PER_CALL));
      const answers = await Promise.all(chunks.map(statsOf));
      // A Map, not an object: the answer's keys come from another process.
      return new Map(answers.flatMap((stats) => Object.entries(stats)));
    },
    close: () => delivery.close(),
  };
}
