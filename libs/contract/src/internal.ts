/**
 * Internal (service-to-service) contracts, as the CALLER sees them: the request bodies it sends
 * and the answer shapes it parses. One declaration, used by the calling client and by the owner
 * service's contract test (services/<owner>/test/internal-contract.test.ts), and snapshotted as
 * JSON Schema under contracts/internal/ by scripts/internal-contracts.ts (docs/development.md,
 * "Internal contracts").
 */
import { z } from 'zod';
import { CampaignStatusSchema, IssueStatusSchema } from './enums.ts';
import { PublicIssueSchema } from './resources.ts';

// --- delivery → webhook (services/delivery/src/clients/webhook-client.ts) ---

/**
 * One enabled endpoint (`GET /internal/v1/orgs/:orgId/endpoints?eventType=&unsignable=include`),
 * secrets included. With `unsignable=include` an endpoint whose secret no key of the webhook
 * service opens comes too, `secretUnavailable: true` and `secret: null`: its deliveries wait
 * for the key instead of vanishing (issue 22, finding 8). Without it, such endpoints are left out.
 */
export const InternalEndpointSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  secret: z.string().min(1).nullable(),
  /** During a rotation's grace: the secret before it, and when it stops being used. */
  previousSecret: z.string().min(1).nullish(),
  previousSecretExpiresAt: z.string().nullish(),
  events: z.array(z.string()),
  secretUnavailable: z.boolean().optional(),
});
export const InternalEndpointListSchema = z.array(InternalEndpointSchema);

/** One endpoint whatever its state or filter (`GET /internal/v1/webhooks/:id/endpoint?unsignable=include`; without it, 409 when unsignable). */
export const InternalEndpointDetailSchema = InternalEndpointSchema.extend({ orgId: z.uuid(), isEnabled: z.boolean() });

/** `POST /internal/v1/webhooks/:id/delivery-outcome`. */
export const DeliveryOutcomeRequestSchema = z.object({ delivered: z.boolean() });
/** An endpoint's state after an outcome. */
export const DeliveryOutcomeStateSchema = z.object({ isEnabled: z.boolean(), consecutiveFailures: z.number().int() });

/** `POST /internal/v1/delivery-outcomes`. */
export const DeliveryOutcomesRequestSchema = z.object({ outcomes: z.array(z.object({ webhookId: z.string(), delivered: z.boolean() })) });
export const DeliveryOutcomesAnswerSchema = z.object({ results: z.array(z.object({ webhookId: z.string(), state: DeliveryOutcomeStateSchema.nullable() })) });

// --- webhook → delivery (services/webhook/src/clients/delivery-client.ts) ---

/** `POST /internal/v1/endpoint-stats`. */
export const EndpointStatsRequestSchema = z.object({ ids: z.array(z.string()) });
/** One endpoint's numbers. */
export const EndpointStatsSchema = z.object({
  attempts24h: z.number().int().nonnegative(),
  succeeded24h: z.number().int().nonnegative(),
  p50Ms: z.number().nonnegative().nullable(),
  p99Ms: z.number().nonnegative().nullable(),
  lastSuccessAt: z.string().nullable(),
  lastFailureAt: z.string().nullable(),
});
export const EndpointStatsAnswerSchema = z.object({ stats: z.record(z.string(), EndpointStatsSchema) });

// --- issue → campaign (services/issue/src/directory/campaign-client.ts) ---

/** `GET /internal/v1/campaigns/:id` (docs/development.md, "Identity between gateway and services"). */
export const InternalCampaignSchema = z.object({
  id: z.uuid(),
  orgId: z.uuid(),
  name: z.string().nullable(),
  status: CampaignStatusSchema.nullable(),
  siteId: z.uuid(),
  siteName: z.string().nullable(),
  createdAt: z.iso.datetime({ offset: true }),
});

// --- integration → issue (services/integration/src/clients/issue-client.ts) ---

/** `GET /internal/v1/issues/:id`: the public detail plus orgId and reporter. */
export const InternalIssueSchema = PublicIssueSchema.extend({
  orgId: z.uuid(),
  reporter: z.string().nullable().optional(),
  status: IssueStatusSchema,
  title: z.string(),
});
/** `POST /internal/v1/issues/:id/status` (answers 200; 404; 409/422 with a problem the caller reads leniently). */
export const InternalStatusChangeRequestSchema = z.object({ to: IssueStatusSchema, reason: z.string(), origin: z.string() });

export type InternalEndpoint = z.infer<typeof InternalEndpointSchema>;
export type InternalEndpointDetail = z.infer<typeof InternalEndpointDetailSchema>;
export type DeliveryOutcomeState = z.infer<typeof DeliveryOutcomeStateSchema>;
export type EndpointStats = z.infer<typeof EndpointStatsSchema>;
export type InternalCampaign = z.infer<typeof InternalCampaignSchema>;
export type InternalIssue = z.infer<typeof InternalIssueSchema>;
export type InternalStatusChangeRequest = z.infer<typeof InternalStatusChangeRequestSchema>;

/** One route of an internal contract as its caller uses it; the contracts are built from the route manifest (manifest/internal-endpoints.ts). */
export interface InternalRouteContract {
  method: 'GET' | 'POST';
  path: string;
  request?: z.ZodType;
  response?: z.ZodType;
}
