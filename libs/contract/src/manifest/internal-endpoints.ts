import type { z } from 'zod';
import {
  DeliveryOutcomeRequestSchema,
  DeliveryOutcomesAnswerSchema,
  DeliveryOutcomesRequestSchema,
  DeliveryOutcomeStateSchema,
  EndpointStatsAnswerSchema,
  EndpointStatsRequestSchema,
  InternalCampaignSchema,
  InternalEndpointDetailSchema,
  InternalEndpointListSchema,
  InternalEndpointQuerySchema,
  InternalIssueSchema,
  InternalStatusChangeRequestSchema,
  InternalWebhookStateSchema,
  type InternalRouteContract,
} from '../internal.ts';
import type { Endpoint, ServiceName } from './endpoint.ts';

/**
 * Service-to-service endpoints under /internal/v1 (never routed by the gateway), with their
 * bodies (libs/contract/src/internal.ts). `INTERNAL_CONTRACTS` groups them
 * per caller and owner for the committed snapshots (docs/development-reference.md, "Internal contracts").
 */
interface InternalBodies {
  request?: z.ZodType;
  query?: z.ZodType;
  response?: z.ZodType;
}
type None = Record<never, never>;
type BodyPart<B> = B extends { request: infer S extends z.ZodType } ? { body: S } : None;
type QueryPart<B> = B extends { query: infer S extends z.ZodType } ? { query: S } : None;
/** The entry's `request` and `response`, typed by the schemas given (so `RequestOf`/`ResponseOf` see them). */
type InternalShapes<B> = (B extends { request: z.ZodType } | { query: z.ZodType } ? { request: BodyPart<B> & QueryPart<B> } : None) &
  (B extends { response: infer S extends z.ZodType } ? { response: { status: 200; body: S } } : None);

/**
 * An internal endpoint: its owner, its one caller, the body (`request`) or query (`query`) that
 * caller sends, and the body the owner answers with a 200 (`response`).
 */
const internal = <O extends ServiceName, B extends InternalBodies = None>(method: 'GET' | 'POST', path: string, owner: O, caller: ServiceName, bodies: B = {} as B) => {
  const { request: body, query, response } = bodies as InternalBodies;
  const shapes = {
    ...(body || query ? { request: { ...(body ? { body } : {}), ...(query ? { query } : {}) } } : {}),
    ...(response ? { response: { status: 200, body: response } } : {}),
  };
  return { method, path, owner, auth: 'internal' as const, callers: [caller], ...(shapes as InternalShapes<B>) };
};

export const INTERNAL_ENDPOINTS = {
  // delivery → webhook (services/delivery/src/clients/webhook-client.ts)
  internalListEndpoints: internal('GET', '/internal/v1/orgs/:orgId/endpoints', 'webhook', 'delivery', { query: InternalEndpointQuerySchema, response: InternalEndpointListSchema }),
  internalGetWebhook: internal('GET', '/internal/v1/webhooks/:id', 'webhook', 'delivery', { response: InternalWebhookStateSchema }),
  internalGetEndpoint: internal('GET', '/internal/v1/webhooks/:id/endpoint', 'webhook', 'delivery', { response: InternalEndpointDetailSchema }),
  internalDeliveryOutcome: internal('POST', '/internal/v1/webhooks/:id/delivery-outcome', 'webhook', 'delivery', {
    request: DeliveryOutcomeRequestSchema,
    response: DeliveryOutcomeStateSchema,
  }),
  internalDeliveryOutcomes: internal('POST', '/internal/v1/delivery-outcomes', 'webhook', 'delivery', {
    request: DeliveryOutcomesRequestSchema,
    response: DeliveryOutcomesAnswerSchema,
  }),
  // webhook → delivery (services/webhook/src/clients/delivery-client.ts)
  internalEndpointStats: internal('POST', '/internal/v1/endpoint-stats', 'delivery', 'webhook', { request: EndpointStatsRequestSchema, response: EndpointStatsAnswerSchema }),
  // issue → campaign (services/issue/src/directory/campaign-client.ts)
  internalGetCampaign: internal('GET', '/internal/v1/campaigns/:id', 'campaign', 'issue', { response: InternalCampaignSchema }),
  // integration → issue (services/integration/src/clients/issue-client.ts)
  internalGetIssue: internal('GET', '/internal/v1/issues/:id', 'issue', 'integration', { response: InternalIssueSchema }),
  internalChangeIssueStatus: internal('POST', '/internal/v1/issues/:id/status', 'issue', 'integration', {
    request: InternalStatusChangeRequestSchema,
    response: InternalIssueSchema,
  }),
} satisfies Record<string, Endpoint>;

export interface InternalContract {
  caller: ServiceName;
  owner: ServiceName;
  routes: InternalRouteContract[];
}

/** Each caller's contract with each owner, keyed `<caller>-to-<owner>`, routes in manifest order. */
function internalContractsOf(endpoints: Record<string, Endpoint> = INTERNAL_ENDPOINTS): Record<string, InternalContract> {
  const out: Record<string, InternalContract> = {};
  for (const e of Object.values(endpoints)) {
    if (e.auth !== 'internal') continue;
    if (e.method !== 'GET' && e.method !== 'POST') throw new Error(`manifest: internal ${e.method} ${e.path} is neither GET nor POST`);
    for (const caller of e.callers) {
      const contract = (out[`${caller}-to-${e.owner}`] ??= { caller, owner: e.owner, routes: [] });
      contract.routes.push({ method: e.method, path: e.path, ...(e.request?.body ? { request: e.request.body } : {}), ...(e.response?.body ? { response: e.response.body } : {}) });
    }
  }
  return out;
}

/** The internal contracts the snapshots under contracts/internal/ are written from (scripts/internal-contracts.ts). */
export const INTERNAL_CONTRACTS = internalContractsOf();
