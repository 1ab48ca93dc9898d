import { sql } from '@preflight/db';
import type { AttemptOutcome, DeliveryTrigger } from './schema.ts';

/** One attempt as the delivery log keeps it (`delivery_attempts`). */
export interface AttemptRecord {
  attemptId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
  outcome: AttemptOutcome;
  trigger: DeliveryTrigger;
}

/**
 * A Postgres array literal of one column of `rows`, for values that never need quoting:
 * uuids, numbers, booleans, ISO timestamps, the service's own status words and public event
 * type names (undefined and null as NULL). One string per column, where pg quotes and escapes
 * every element of an array parameter (its `arrayString`, the largest allocator of this
 * process at saturation). Text that may hold anything (ids from publishers, URLs, bodies,
 * errors) is passed as an array for pg to escape.
 */
export function bareArray<T>(rows: readonly T[], value: (row: T) => string | number | boolean | null | undefined): string {
  let out = '{';
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) out += ',';
    out += value(rows[i]!) ?? 'NULL';
  }
  return `${out}}`;
}

/**
 * Attempt rows for an insert into `delivery_attempts`, one array per column (unnest), rather
 * than a VALUES list of 12 bound values a row: the statement's text is the same for every
 * batch size, so it is named and planned once per connection, and neither kysely nor
 * Postgres handles thousands of single parameters.
 */
export const attemptRows = (a: readonly AttemptRecord[]) => sql`select * from unnest(
    ${bareArray(a, (x) => x.attemptId)}::uuid[], ${bareArray(a, (x) => x.deliveryId)}::uuid[], ${a.map((x) => x.eventId)}::text[],
    ${bareArray(a, (x) => x.eventType)}::text[], ${bareArray(a, (x) => x.endpointId)}::uuid[], ${bareArray(a, (x) => x.attempt)}::integer[],
    ${bareArray(a, (x) => x.attemptedAt.toISOString())}::timestamptz[], ${bareArray(a, (x) => x.statusCode)}::integer[], ${bareArray(a, (x) => x.durationMs)}::integer[],
    ${a.map((x) => x.responseBody)}::text[], ${a.map((x) => x.error)}::text[], ${bareArray(a, (x) => x.outcome)}::text[], ${bareArray(a, (x) => x.trigger)}::text[])`;

export const ATTEMPT_COLUMNS = sql`(attempt_id, delivery_id, event_id, event_type, endpoint_id, attempt, attempted_at, status_code, duration_ms, response_body, error, outcome, trigger)`;
