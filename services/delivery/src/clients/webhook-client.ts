import type { DeliveryOutcomeState, InternalEndpoint, InternalEndpointDetail } from '@preflight/contract';
import type { ServiceTokens } from '@preflight/service-auth';
import { internalClient } from '@preflight/service-kit';

/** The webhook service's internal answers as this client parses them (libs/contract, internal.ts; services/webhook/README.md). */
export type Endpoint = InternalEndpoint;
/** One endpoint whatever its state or filter (`GET /internal/v1/webhooks/:id/endpoint`): operator sends need it. */
export type EndpointDetail = InternalEndpointDetail;
export type EndpointState = DeliveryOutcomeState;

/** Outcomes per batched call (the webhook service takes up to MAX_DELIVERY_OUTCOMES_PER_CALL). */
export const OUTCOMES_PER_CALL = 200;

/** The webhook service gave no usable answer (down, timing out, or garbled): retry later. */
export class WebhookServiceUnavailable extends Error {
  override readonly name = 'WebhookServiceUnavailable';
}

export interface WebhookClient {
  /** The organisation's enabled endpoints that receive `eventType`, secrets included (`secretUnavailable` where the webhook service cannot open one). */
  endpointsFor(orgId: string, eventType: string): Promise<Endpoint[]>;
  /** Reports a delivery's final outcome; undefined when the endpoint no longer exists. */
  reportOutcome(endpointId: string, delivered: boolean): Promise<EndpointState | undefined>;
  /**
   * Reports several final outcomes, applied in the order given: an endpoint's successes in a
   * row folded into one (`foldSuccesses`), then one call per OUTCOMES_PER_CALL of what is left,
   * one after another. Answers each endpoint's state after its outcome, undefined for a deleted
   * one. Should a later call fail, the earlier ones stand, and a retry of all of them reports
   * those again (outcome reports are at least once, like their retries by the outcome reporter).
   */
  reportOutcomes(outcomes: ReadonlyArray<{ endpointId: string; delivered: boolean }>): Promise<Array<EndpointState | undefined>>;
  /** The organisation of the endpoint (enabled or not); undefined when it does not exist or is deleted. */
  webhookOrg(endpointId: string): Promise<string | undefined>;
  /** The endpoint with its secrets, enabled or not, whatever its filter; undefined once it is deleted. */
  endpointById(endpointId: string): Promise<EndpointDetail | undefined>;
  close(): Promise<void>;
}

const TIMEOUT_MS = 5_000;

/** `tokens` sign each call as the delivery service: the webhook service serves endpoint secrets to no one else. */
export function createWebhookClient(baseUrl: string, tokens: Pick<ServiceTokens, 'authorization'>): WebhookClient {
  const webhook = internalClient('webhook', { baseUrl, tokens, timeoutMs: TIMEOUT_MS, unavailable: WebhookServiceUnavailable });
  // unsignable=include: an endpoint whose secret the webhook service cannot open comes marked,
  // so its deliveries are held for the key rather than never made.
  const unsignable = 'include';

  const client: WebhookClient = {
    // A malformed org id names no organisation, hence no endpoints.
    endpointsFor: async (orgId, eventType) => (await webhook.found('internalListEndpoints', { params: { orgId }, query: { eventType, unsignable } })) ?? [],
    reportOutcome: (endpointId, delivered) => webhook.found('internalDeliveryOutcome', { params: { id: endpointId }, body: { delivered } }),
    webhookOrg: async (endpointId) => (await webhook.found('internalGetWebhook', { params: { id: endpointId } }))?.orgId,
    endpointById: (endpointId) => webhook.found('internalGetEndpoint', { params: { id: endpointId }, query: { unsignable } }),
    async reportOutcomes(all) {
      if (all.length === 0) return [];
      // Folded before they are split into calls: a fan-out batch carries many outcomes, mostly
      // successes, and the fewer calls the fewer that can fail and leave outcomes to the reporter.
      const { outcomes, sentAs } = foldSuccesses(all);
      const states: Array<EndpointState | undefined> = [];
      for (let i = 0; i < outcomes.length; i += OUTCOMES_PER_CALL) states.push(...(await reportFolded(outcomes.slice(i, i + OUTCOMES_PER_CALL))));
      return sentAs.map((i) => states[i]);
    },
    close: () => webhook.close(),
  };

  async function reportFolded(outcomes: ReadonlyArray<{ endpointId: string; delivered: boolean }>): Promise<Array<EndpointState | undefined>> {
    const answer = await webhook.found('internalDeliveryOutcomes', { body: { outcomes: outcomes.map((o) => ({ webhookId: o.endpointId, delivered: o.delivered })) } });
    if (!answer) {
      // A webhook service from before the batched route (a rolling upgrade): one call each, in order.
      const states: Array<EndpointState | undefined> = [];
      for (const o of outcomes) states.push(await client.reportOutcome(o.endpointId, o.delivered));
      return states;
    }
    if (answer.results.length !== outcomes.length) throw new WebhookServiceUnavailable('the webhook service answered a different number of delivery outcomes');
    return answer.results.map((r) => r.state ?? undefined);
  }
  return client;
}

/**
 * The outcomes to send for `all`, and for each outcome of `all` the index of the one sent for
 * it. A success sets the endpoint's failure count to 0 and changes nothing else (a success
 * never re-enables: services/webhook, `recordDeliveryOutcomes`), so an endpoint's successes in
 * a row leave it as the first of them does, and answer the same state: one is sent for the
 * run. Under a steady flow of successes a call then carries one outcome per endpoint rather
 * than one per delivery: less to encode, parse, validate and answer on both sides (the call's
 * own cost, a request and a transaction, stays). Failures are all sent, in order: each one
 * counts.
 */
export function foldSuccesses(all: ReadonlyArray<{ endpointId: string; delivered: boolean }>): {
  outcomes: Array<{ endpointId: string; delivered: boolean }>;
  sentAs: number[];
} {
  const outcomes: Array<{ endpointId: string; delivered: boolean }> = [];
  /** Per endpoint, the index of the success sent for the run of successes it is in. */
  const run = new Map<string, number>();
  const sentAs = all.map((o) => {
    const same = o.delivered ? run.get(o.endpointId) : undefined;
    if (same !== undefined) return same;
    outcomes.push({ endpointId: o.endpointId, delivered: o.delivered });
    const at = outcomes.length - 1;
    if (o.delivered) run.set(o.endpointId, at);
    else run.delete(o.endpointId);
    return at;
  });
  return { outcomes, sentAs };
}
