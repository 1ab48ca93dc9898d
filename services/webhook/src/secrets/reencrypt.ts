import { createDatabase, type Kysely } from '@preflight/db';
import { reencryptCommand as runReencryption, reencryptStore, type KeyRing, type RingReport } from '@preflight/secret-box';
import type { WebhookConfig } from '../config.ts';
import { sealedSecrets } from '../storage/sealed-secrets.ts';
import type { WebhookDatabase } from '../storage/schema.ts';

/**
 * Seals every signing secret (the previous one too while its grace lasts) under the ring's
 * active key, a page at a time; safe while the service runs (each write applies only where the
 * row still holds what was read). `write: false` only reports.
 */
export const reencryptWebhookSecrets = (db: Kysely<WebhookDatabase>, keys: KeyRing, opts: { write: boolean; batchSize?: number }): Promise<RingReport> =>
  reencryptStore(keys, sealedSecrets(db), opts);

/** `main.ts reencrypt-secrets [--check]`: the operator's command after an at-rest key rotation. */
export async function reencryptCommand(config: WebhookConfig, args: string[]): Promise<number> {
  const database = createDatabase<WebhookDatabase>({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, poolMax: 2, applicationName: 'webhook-reencrypt' });
  try {
    return await runReencryption({ service: 'webhook', ring: config.WEBHOOK_SECRET_KEYS, args, ...sealedSecrets(database.db) });
  } finally {
    await database.close();
  }
}
