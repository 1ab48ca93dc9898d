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
 * Attempt rows for an insert into `delivery_attempts`, as arrays, one per column (unnest),
 * rather than a VALUES list of 12 bound values a row: the statement's text is the same for
 * every batch size, so it is named and planned once per connection, and neither kysely nor
 * Postgres handles thousands of single parameters.
 */
export const attemptRows = (a: readonly AttemptRecord[]) => sql`select * from unnest(
    ${a.map((x) => x.attemptId)}::uuid[], ${a.map((x) => x.deliveryId)}::uuid[], ${a.map((x) => x.eventId)}::text[],
    ${a.map((x) => x.eventType)}::text[], ${a.map((x) => x.endpointId)}::uuid[], ${a.map((x) => x.attempt)}::integer[],
    ${a.map((x) => x.attemptedAt.toISOString())}::timestamptz[], ${a.map((x) => x.statusCode)}::integer[], ${a.map((x) => x.durationMs)}::integer[],
    ${a.map((x) => x.responseBody)}::text[], ${a.map((x) => x.error)}::text[], ${a.map((x) => x.outcome)}::text[], ${a.map((x) => x.trigger)}::text[])`;

export const ATTEMPT_COLUMNS = sql`(attempt_id, delivery_id, event_id, event_type, endpoint_id, attempt, attempted_at, status_code, duration_ms, response_body, error, outcome, trigger)`;
