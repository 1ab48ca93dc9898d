import type { ColumnType } from '@preflight/db';

/** Table types of the webhook schema (migrations/0001_init.ts, 0002_previous_secret.ts). */
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export type WebhookSource = 'api' | 'dashboard';

export interface WebhooksTable {
  id: string;
  org_id: string;
  name: string | null;
  url: string;
  events: ColumnType<string[], string[] | undefined, string[]>;
  source: WebhookSource;
  is_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  disabled_at: Date | null;
  secret_key_id: string;
  secret_iv: Buffer;
  secret_ciphertext: Buffer;
  secret_tag: Buffer;
  // The secret the last rotation replaced, during its grace period (all null when there is none).
  previous_secret_key_id: ColumnType<string | null, string | null | undefined, string | null>;
  previous_secret_iv: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>;
  previous_secret_ciphertext: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>;
  previous_secret_tag: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>;
  previous_secret_expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface WebhookDatabase {
  webhooks: WebhooksTable;
}
