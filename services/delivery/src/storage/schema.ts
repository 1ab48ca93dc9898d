import type { ATTEMPT_OUTCOMES, DELIVERY_TRIGGERS } from '@preflight/contract';
import type { ColumnType } from '@preflight/db';

/** Table types of the delivery schema (migrations/). `inbox` belongs to @preflight/bus. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export type DeliveryStatus = 'pending' | 'parked' | 'delivered' | 'failed' | 'cancelled';
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];
/** What made a delivery (admin-api-v1.md: the log's `trigger`). */
export type DeliveryTrigger = (typeof DELIVERY_TRIGGERS)[number];

export interface DeliveriesTable {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  org_id: string;
  url: string;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  attempt_count: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  leased_until: NullableTimestamp;
  lease_token: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
  /** Null on every row since 0003 (a delivery whose outcome is reported is deleted); the unreported index reads it. */
  outcome_reported_at: NullableTimestamp;
  trigger: ColumnType<DeliveryTrigger, DeliveryTrigger | undefined, DeliveryTrigger>;
}

/** One public envelope of an event (its exact body bytes), shared by every delivery of it. */
export interface DeliveryEnvelopesTable {
  event_id: string;
  event_type: string;
  body: string;
  created_at: Timestamp;
}

export interface DeliveryAttemptsTable {
  attempt_id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  duration_ms: number;
  response_body: string | null;
  error: string | null;
  outcome: AttemptOutcome;
  trigger: ColumnType<DeliveryTrigger, DeliveryTrigger | undefined, DeliveryTrigger>;
}

export interface DeliveryDatabase {
  deliveries: DeliveriesTable;
  delivery_envelopes: DeliveryEnvelopesTable;
  delivery_attempts: DeliveryAttemptsTable;
}
