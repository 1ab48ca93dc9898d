import { z } from 'zod';
import { IssueSeveritySchema } from '../../enums.ts';
import { EMITTED_EVENT_TYPES } from '../../events.ts';
import { requiredText } from '../../requests.ts';

/**
 * Request and response shapes of the integration service's admin entries (admin-api-v1.md,
 * "Integrations"), referenced by admin/integration.ts. The request shapes are the rules every
 * kind shares; each kind's own `config` and `credentials` rules, and which events a tracker
 * takes, stay with the service's providers (services/integration/src/domain/connection-request.ts).
 */

export const INTEGRATION_CHAT_KINDS = ['slack', 'teams'] as const;
export const INTEGRATION_TRACKER_KINDS = ['github', 'jira', 'linear'] as const;
export const INTEGRATION_KINDS = [...INTEGRATION_CHAT_KINDS, ...INTEGRATION_TRACKER_KINDS] as const;
/** `needs-attention`: the provider refused the credentials; nothing is retried until they are replaced. */
export const INTEGRATION_STATUSES = ['active', 'failing', 'needs-attention'] as const;
/** What happened to one call or hook, in the activity. */
export const INTEGRATION_OUTCOMES = ['succeeded', 'skipped', 'retrying', 'failed'] as const;

export const MAX_INTEGRATION_NAME = 100;
export const MAX_INTEGRATION_CAMPAIGNS = 500;
export const MAX_INTEGRATION_ACTIVITY = 200;

// As the services' path ids (any hex UUID), not zod's RFC-versioned z.uuid().
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const dateTime = z.iso.datetime({ offset: true });
const jsonObject = z.record(z.string(), z.unknown(), { error: 'Must be a JSON object.' });

const kind = z.enum(INTEGRATION_KINDS, { error: `Must be one of ${INTEGRATION_KINDS.join(', ')}.` });

const campaignIds = z
  .array(z.string({ error: 'Must be a campaign id (UUID).' }).regex(UUID, 'Must be a campaign id (UUID).').transform((v) => v.toLowerCase()), {
    error: 'Must be an array of campaign ids, or null for every campaign.',
  })
  .max(MAX_INTEGRATION_CAMPAIGNS, `Must list at most ${MAX_INTEGRATION_CAMPAIGNS} campaigns.`)
  .transform((ids) => [...new Set(ids)])
  .nullable();

const events = z
  .array(z.enum(EMITTED_EVENT_TYPES, { error: `Must be one of ${EMITTED_EVENT_TYPES.join(', ')}.` }), { error: 'Must be an array of event names.' })
  .min(1, 'Must list at least one event.')
  .transform((names) => [...new Set(names)]);

const name = requiredText(MAX_INTEGRATION_NAME);

/** POST …/organizations/:orgId/integrations. `campaignIds` null or omitted: every campaign; `events` omitted: the kind's default. */
export const AdminCreateIntegrationRequestSchema = z.strictObject({
  kind,
  name,
  campaignIds: campaignIds.optional(),
  events: events.optional(),
  minSeverity: IssueSeveritySchema.nullable().optional(),
  config: jsonObject,
  credentials: jsonObject,
});

/** PATCH /admin/v1/integrations/:id: any of the settings; `credentials` always the whole object. */
export const AdminUpdateIntegrationRequestSchema = z.strictObject({
  name: name.optional(),
  config: jsonObject.optional(),
  credentials: jsonObject.optional(),
  campaignIds: campaignIds.optional(),
  events: events.optional(),
  minSeverity: IssueSeveritySchema.nullable().optional(),
  paused: z.boolean({ error: 'Must be true or false.' }).optional(),
});

const activityLimit = `Must be a whole number from 1 to ${MAX_INTEGRATION_ACTIVITY}.`;

export const AdminIntegrationActivityQuerySchema = z.object({
  limit: z.coerce.number({ error: activityLimit }).int(activityLimit).min(1, activityLimit).max(MAX_INTEGRATION_ACTIVITY, activityLimit).default(50),
});

/** A tracker's inbound hook: where to point it, and (shown once: at creation and on rotation) the secret it signs with. */
export const AdminIntegrationInboundSecretSchema = z.object({ url: z.string(), secret: z.string() });

/** A connection: never its credentials. */
const connectionSettings = {
  id: z.uuid(),
  kind: z.enum(INTEGRATION_KINDS),
  name: z.string(),
  /** The kind's own settings (admin-api-v1.md's table), as saved. */
  config: z.record(z.string(), z.unknown()),
  /** null: every campaign of the organisation. */
  campaignIds: z.array(z.string()).nullable(),
  events: z.array(z.enum(EMITTED_EVENT_TYPES)),
  minSeverity: IssueSeveritySchema.nullable(),
  paused: z.boolean(),
  status: z.enum(INTEGRATION_STATUSES),
  lastError: z.string().nullable(),
  lastSuccessAt: dateTime.nullable(),
  createdAt: dateTime,
};

/** Trackers carry `inbound.url`, where to point their webhook. */
export const AdminIntegrationSchema = z.object({ ...connectionSettings, inbound: z.object({ url: z.string() }).optional() });

/** The 201 of a new connection: a tracker's inbound secret is shown this once. */
export const AdminCreatedIntegrationSchema = z.object({ ...connectionSettings, inbound: AdminIntegrationInboundSecretSchema.optional() });

export const AdminIntegrationListSchema = z.array(AdminIntegrationSchema);

/** The provider's refusal is the answer (`ok: false`), not an error of the API. */
export const AdminIntegrationTestResultSchema = z.object({ ok: z.boolean(), statusCode: z.number().int().nullable(), detail: z.string() });

export const AdminIntegrationActivitySchema = z.array(
  z.object({
    at: dateTime,
    direction: z.enum(['out', 'in']),
    issueId: z.uuid().nullable(),
    action: z.string(),
    outcome: z.enum(INTEGRATION_OUTCOMES),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    externalKey: z.string().nullable(),
  }),
);

/** How many given-up jobs run again. */
export const AdminIntegrationRetrySchema = z.object({ requeued: z.number().int() });

export const AdminIssueLinksSchema = z.array(
  z.object({ integrationId: z.uuid(), kind: z.enum(INTEGRATION_KINDS), externalKey: z.string(), url: z.string(), syncedAt: dateTime }),
);

/** The answer to a tracker's hook (POST /integrations/v1/hooks/:connectionId): always 200, since Linear counts anything else as failed. */
export const TrackerHookAnswerSchema = z.object({ status: z.enum(['accepted', 'ignored']) });
export type TrackerHookAnswer = z.output<typeof TrackerHookAnswerSchema>;
