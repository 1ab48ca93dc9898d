import type { z } from 'zod';
import { EndpointStatsAnswerSchema as StatsAnswerSchema, pathOf, type EndpointStats, type EndpointStatsRequestSchema } from '@preflight/contract';
import { outgoingTraceparent } from '@preflight/http';
import type { ServiceTokens } from '@preflight/service-auth';

/** The delivery service takes at most this many ids per call. */
export const STATS_IDS_PER_CALL = 500;

/** The settings page waits for the numbers no longer than this; it then shows the list without them. */
const TIMEOUT_MS = 2_000;

/** The delivery service gave no usable answer (down, too slow, or garbled). */
export class DeliveryServiceUnavailable extends Error {
  override readonly name = 'DeliveryServiceUnavailable';
}

export interface DeliveryClient {
  /** Stats by endpoint id (as asked); throws DeliveryServiceUnavailable when they cannot be had. */
  endpointStats(ids: readonly string[]): Promise<Map<string, EndpointStats>>;
}

/**
 * Global fetch (undici inside Node) rather than undici's `request`: the webhook service has no
 * undici dependency of its own, and one call per admin list needs no tuned agent.
 */
export function createDeliveryClient(baseUrl: string, tokens: Pick<ServiceTokens, 'authorization'>): DeliveryClient {
  const base = baseUrl.replace(/\/+$/, '');

  async function statsOf(ids: readonly string[]): Promise<Record<string, EndpointStats>> {
    const traceparent = outgoingTraceparent();
    let answer: unknown;
    try {
      const authorization = await tokens.authorization('delivery');
      const res = await fetch(`${base}${pathOf('internalEndpointStats')}`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', authorization, ...(traceparent ? { traceparent } : {}) },
        body: JSON.stringify({ ids: [...ids] } satisfies z.input<typeof EndpointStatsRequestSchema>),
        // Covers connecting, the headers and the body alike.
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new DeliveryServiceUnavailable(`the delivery service answered ${res.status} to endpoint stats`);
      }
      answer = await res.json();
    } catch (err) {
      if (err instanceof DeliveryServiceUnavailable) throw err;
      throw new DeliveryServiceUnavailable(`no answer from the delivery service: ${(err as Error).message}`, { cause: err });
    }
    const parsed = StatsAnswerSchema.safeParse(answer);
    if (!parsed.success) throw new DeliveryServiceUnavailable('the delivery service answered endpoint stats in an unexpected shape');
    return parsed.data.stats;
  }

  return {
    async endpointStats(ids) {
      const chunks: Array<readonly string[]> = [];
      for (let i = 0; i < ids.length; i += STATS_IDS_PER_CALL) chunks.push(ids.slice(i, i + STATS_IDS_PER_CALL));
      const answers = await Promise.all(chunks.map(statsOf));
      // A Map, not an object: the answer's keys come from another process.
      return new Map(answers.flatMap((stats) => Object.entries(stats)));
    },
  };
}
