/**
 * Internal (service-to-service) contracts: the request bodies the caller sends, with the rules
 * the owner parses them by, and the answer shapes the owner sends and the caller parses. One
 * declaration, used by the calling client, by the owner's route and its contract test
 * (services/<owner>/test/internal-contract.test.ts), and snapshotted as JSON Schema under
 * contracts/internal/ by scripts/internal-contracts.ts (docs/development-reference.md, "Internal contracts").
 */
import { z } from 'zod';
import { CampaignStatusSchema, IssueStatusSchema } from './enums.ts';
import { EMITTED_EVENT_TYPES, RESERVED_EVENT_TYPES } from './events.ts';
import { duplicateOfRule, issueStatusChangeFields } from './manifest/admin/issue-status-change.ts';
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

/** The query of the endpoint list: which event, and whether unsignable endpoints come too. */
export const InternalEndpointQuerySchema = z.object({
  unsignable: z.literal('include').optional(),
  eventType: z.enum([...EMITTED_EVENT_TYPES, ...RESERVED_EVENT_TYPES], {
    error: (issue) => (issue.input === undefined ? 'eventType is required.' : 'eventType must be an event name.'),
  }),
});

/** `GET /internal/v1/webhooks/:id`: whether an endpoint exists, whose it is and whether it is enabled (no secret or URL). */
export const InternalWebhookStateSchema = z.object({ id: z.uuid(), orgId: z.uuid(), isEnabled: z.boolean() });

/** One endpoint whatever its state or filter (`GET /internal/v1/webhooks/:id/endpoint?unsignable=include`; without it, 409 when unsignable). */
export const InternalEndpointDetailSchema = InternalEndpointSchema.extend({ orgId: z.uuid(), isEnabled: z.boolean() });

/** `POST /internal/v1/webhooks/:id/delivery-outcome`. */
export const DeliveryOutcomeRequestSchema = z.strictObject({ delivered: z.boolean({ error: 'Must be true or false.' }) });
/** An endpoint's state after an outcome. */
export const DeliveryOutcomeStateSchema = z.object({ isEnabled: z.boolean(), consecutiveFailures: z.number().int() });

/** Bounds one report's work (and the webhook service's transaction) whatever the caller sends. */
export const MAX_DELIVERY_OUTCOMES_PER_CALL = 500;

/** `POST /internal/v1/delivery-outcomes`. */
export const DeliveryOutcomesRequestSchema = z.strictObject({
  outcomes: z
    .array(
      z.strictObject({
        webhookId: z.uuid({ error: 'Must be a webhook id.' }),
        delivered: z.boolean({ error: 'Must be true or false.' }),
      }),
    )
    .min(1, { error: 'At least one outcome.' })
    .max(MAX_DELIVERY_OUTCOMES_PER_CALL, { error: `At most ${MAX_DELIVERY_OUTCOMES_PER_CALL} outcomes.` }),
});
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

/** `GET /internal/v1/campaigns/:id` (docs/development-reference.md, "Identity between gateway and services"). */
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
const MAX_ORIGIN = 200;

/**
 * `<source>:<id>`, e.g. `integration:<connectionId>`: a lower-case source name, a colon, then an
 * id without spaces. Carried on IssueStatusChanged.origin, so the caller can skip its own echo.
 */
const ORIGIN_PATTERN = /^[a-z][a-z0-9-]*:[A-Za-z0-9._:-]+$/;

/**
 * `POST /internal/v1/issues/:id/status`: the admin status change's fields plus the required
 * `origin` (answers 200 the detail with history; 404; 409/422 with a problem the caller reads leniently).
 */
export const InternalStatusChangeRequestSchema = z
  .strictObject({
    ...issueStatusChangeFields,
    origin: z
      .string({ error: (issue) => (issue.input === undefined ? 'Is required.' : 'Must be a string.') })
      .min(1, 'Must not be empty.')
      .max(MAX_ORIGIN, `Must be at most ${MAX_ORIGIN} characters.`)
      .regex(ORIGIN_PATTERN, 'Must be <source>:<id>, for example integration:<connectionId>.'),
  })
  .superRefine(duplicateOfRule);

export type InternalEndpoint = z.infer<typeof InternalEndpointSchema>;
export type InternalEndpointDetail = z.infer<typeof InternalEndpointDetailSchema>;
export type InternalWebhookState = z.infer<typeof InternalWebhookStateSchema>;
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
