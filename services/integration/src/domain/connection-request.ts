import type { z } from 'zod';
import type { EmittedEventType, IssueSeverity, RequestOf } from '@preflight/contract';
import { fieldErrors, validationFailed, type FieldErrors } from '@preflight/http';
import { isTrackerKind, providerOf } from '../providers/index.ts';
import type { ConnectionKind } from '../providers/provider.ts';

/**
 * The kind's own rules on a connection's settings, after the manifest's request shape
 * (admin-api-v1.md, "Integrations"; decisions in docs/integrations.md): `config` and
 * `credentials` by the kind's schemas, and the events. Chat channels announce any emitted event
 * they select (default IssueCreated); trackers create their issue on IssueCreated and follow
 * status changes of linked issues both ways, so `events` may only be ["IssueCreated"] for them.
 */
export const DEFAULT_EVENTS: readonly EmittedEventType[] = ['IssueCreated'];

export interface ConnectionSettings {
  name: string;
  config: Record<string, unknown>;
  campaignIds: string[] | null;
  events: EmittedEventType[];
  minSeverity: IssueSeverity | null;
}

export interface CreateRequest extends ConnectionSettings {
  kind: ConnectionKind;
  credentials: Record<string, unknown>;
}

export type UpdateRequest = Partial<ConnectionSettings> & { credentials?: Record<string, unknown>; paused?: boolean };

function collect(into: FieldErrors, prefix: string, error: z.ZodError): void {
  for (const [field, messages] of Object.entries(fieldErrors(error))) {
    const path = field === '$' ? prefix : `${prefix}.${field}`;
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

function checkEvents(kind: ConnectionKind, names: readonly EmittedEventType[] | undefined, errors: FieldErrors): void {
  if (!names || !isTrackerKind(kind)) return;
  if (names.some((n) => !DEFAULT_EVENTS.includes(n))) {
    errors.events = ['Trackers create their issue on IssueCreated and follow status changes of linked issues; events may only be ["IssueCreated"].'];
  }
}

/** A new connection's settings, by its kind's rules (422 naming every field that breaks one). */
export function checkCreateRequest(body: RequestOf<'adminCreateIntegration'>): CreateRequest {
  const errors: FieldErrors = Object.create(null);
  const parts = checkKindParts(body.kind, body, errors);
  checkEvents(body.kind, body.events, errors);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return {
    kind: body.kind,
    name: body.name,
    config: parts.config!,
    credentials: parts.credentials!,
    campaignIds: body.campaignIds ?? null,
    events: body.events ?? [...DEFAULT_EVENTS],
    minSeverity: body.minSeverity ?? null,
  };
}

/** A change of a connection of `kind`, by the kind's rules; only the fields given. */
export function checkUpdateRequest(kind: ConnectionKind, body: RequestOf<'adminUpdateIntegration'>): UpdateRequest {
  const errors: FieldErrors = Object.create(null);
  const parts = checkKindParts(kind, body, errors);
  checkEvents(kind, body.events, errors);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const update: UpdateRequest = {};
  if (body.name !== undefined) update.name = body.name;
  if (parts.config) update.config = parts.config;
  if (parts.credentials) update.credentials = parts.credentials;
  if (body.campaignIds !== undefined) update.campaignIds = body.campaignIds;
  if (body.events !== undefined) update.events = body.events;
  if (body.minSeverity !== undefined) update.minSeverity = body.minSeverity;
  if (body.paused !== undefined) update.paused = body.paused;
  return update;
}
