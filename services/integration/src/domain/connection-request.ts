import { z } from 'zod';
import { EMITTED_EVENT_TYPES, IssueSeveritySchema, requiredText } from '@preflight/contract';
import { fieldErrors, isUuid, validationFailed, type FieldErrors } from '@preflight/http';
import { isTrackerKind, providerOf } from '../providers/index.ts';
import { CONNECTION_KINDS, type ConnectionKind } from '../providers/provider.ts';

/**
 * The rules on a connection's settings (admin-api-v1.md, "Integrations"; decisions in
 * docs/integrations.md): `config` and `credentials` by the kind's own schemas, the campaign and
 * severity filters, and the events. Chat channels announce any emitted event they select
 * (default IssueCreated); trackers create their issue on IssueCreated and follow status changes
 * of linked issues both ways, so `events` may only be ["IssueCreated"] for them.
 */
export const MAX_NAME = 100;
export const MAX_CAMPAIGNS = 500;
export const DEFAULT_EVENTS = ['IssueCreated'] as const;
const TRACKER_EVENTS: readonly string[] = DEFAULT_EVENTS;

const plainObject = z.record(z.string(), z.unknown(), { error: 'Must be a JSON object.' });

const campaignIds = z
  .array(z.string({ error: 'Must be a campaign id (UUID).' }).refine(isUuid, 'Must be a campaign id (UUID).').transform((v) => v.toLowerCase()), { error: 'Must be an array of campaign ids, or null for every campaign.' })
  .max(MAX_CAMPAIGNS, `Must list at most ${MAX_CAMPAIGNS} campaigns.`)
  .transform((ids) => [...new Set(ids)])
  .nullable();

const events = z
  .array(z.enum(EMITTED_EVENT_TYPES, { error: `Must be one of ${EMITTED_EVENT_TYPES.join(', ')}.` }), { error: 'Must be an array of event names.' })
  .min(1, 'Must list at least one event.')
  .transform((names) => [...new Set(names)]);

const common = {
  name: requiredText(MAX_NAME),
  campaignIds: campaignIds.optional(),
  events: events.optional(),
  minSeverity: IssueSeveritySchema.nullable().optional(),
};

const CreateShape = z.strictObject({
  kind: z.enum(CONNECTION_KINDS, { error: `Must be one of ${CONNECTION_KINDS.join(', ')}.` }),
  ...common,
  config: plainObject,
  credentials: plainObject,
});

const UpdateShape = z.strictObject({
  name: common.name.optional(),
  config: plainObject.optional(),
  credentials: plainObject.optional(),
  campaignIds: common.campaignIds,
  events: common.events,
  minSeverity: common.minSeverity,
  paused: z.boolean({ error: 'Must be true or false.' }).optional(),
});

export interface ConnectionSettings {
  name: string;
  config: Record<string, unknown>;
  campaignIds: string[] | null;
  events: string[];
  minSeverity: string | null;
}

export interface CreateRequest extends ConnectionSettings {
  kind: ConnectionKind;
  credentials: Record<string, unknown>;
}

export type UpdateRequest = Partial<ConnectionSettings> & { credentials?: Record<string, unknown>; paused?: boolean };

function collect(into: FieldErrors, prefix: string, error: z.ZodError): void {
  for (const [field, messages] of Object.entries(fieldErrors(error))) {
    const path = !prefix ? field : field === '$' ? prefix : `${prefix}.${field}`;
    (into[path] ??= []).push(...messages);
  }
}

/** Validates the kind's config and credentials; credential messages never repeat the values. */
function checkKindParts(kind: ConnectionKind, parts: { config?: unknown; credentials?: unknown }, errors: FieldErrors) {
  const provider = providerOf(kind);
  const out: { config?: Record<string, unknown>; credentials?: Record<string, unknown> } = {};
  if (parts.config !== undefined) {
    const result = provider.configSchema.safeParse(parts.config);
    if (result.success) out.config = result.data as Record<string, unknown>;
    else collect(errors, 'config', result.error);
  }
  if (parts.credentials !== undefined) {
    const result = provider.credentialsSchema.safeParse(parts.credentials);
    if (result.success) out.credentials = result.data as Record<string, unknown>;
    else collect(errors, 'credentials', result.error);
  }
  return out;
}

function checkEvents(kind: ConnectionKind, names: string[] | undefined, errors: FieldErrors): void {
  if (!names || !isTrackerKind(kind)) return;
  if (names.some((n) => !TRACKER_EVENTS.includes(n))) {
    errors.events = ['Trackers create their issue on IssueCreated and follow status changes of linked issues; events may only be ["IssueCreated"].'];
  }
}

export function parseCreateRequest(body: unknown): CreateRequest {
  if (body === undefined) throw validationFailed({ $: ['A JSON request body is required.'] });
  const errors: FieldErrors = Object.create(null);
  const shape = CreateShape.safeParse(body);
  if (!shape.success) {
    collect(errors, '', shape.error);
    throw validationFailed(errors);
  }
  const b = shape.data;
  const parts = checkKindParts(b.kind, b, errors);
  checkEvents(b.kind, b.events, errors);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return {
    kind: b.kind,
    name: b.name,
    config: parts.config!,
    credentials: parts.credentials!,
    campaignIds: b.campaignIds ?? null,
    events: b.events ?? [...DEFAULT_EVENTS],
    minSeverity: b.minSeverity ?? null,
  };
}

export function parseUpdateRequest(kind: ConnectionKind, body: unknown): UpdateRequest {
  if (body === undefined) throw validationFailed({ $: ['A JSON request body is required.'] });
  const errors: FieldErrors = Object.create(null);
  const shape = UpdateShape.safeParse(body);
  if (!shape.success) {
    collect(errors, '', shape.error);
    throw validationFailed(errors);
  }
  const b = shape.data;
  const parts = checkKindParts(kind, b, errors);
  checkEvents(kind, b.events, errors);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const update: UpdateRequest = {};
  if (b.name !== undefined) update.name = b.name;
  if (parts.config) update.config = parts.config;
  if (parts.credentials) update.credentials = parts.credentials;
  if (b.campaignIds !== undefined) update.campaignIds = b.campaignIds;
  if (b.events !== undefined) update.events = b.events;
  if (b.minSeverity !== undefined) update.minSeverity = b.minSeverity;
  if (b.paused !== undefined) update.paused = b.paused;
  return update;
}
