import { createDatabase, type Kysely } from '@preflight/db';
import { reencryptCommand as runReencryption, reencryptStore, type KeyRing, type RingReport } from '@preflight/secret-box';
import type { IntegrationConfig } from '../config.ts';
import { sealedCredentials } from '../storage/sealed-credentials.ts';
import type { IntegrationDatabase } from '../storage/schema.ts';

/**
 * Seals every live connection's credentials and inbound secret under the ring's active key, a
 * page at a time; safe while the service runs (a write applies only where the row still holds
 * what was read). `write: false` only reports.
 */
export const reencryptIntegrationSecrets = (db: Kysely<IntegrationDatabase>, keys: KeyRing, opts: { write: boolean; batchSize?: number }): Promise<RingReport> =>
  reencryptStore(keys, sealedCredentials(db), opts);

/** `main.ts reencrypt-secrets [--check]`, as the webhook service's. */
export async function reencryptCommand(config: IntegrationConfig, args: string[]): Promise<number> {
  const database = createDatabase<IntegrationDatabase>({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, poolMax: 2, applicationName: 'integration-reencrypt' });
  try {
    return await runReencryption({ service: 'integration', ring: config.INTEGRATION_SECRET_KEYS, args, ...sealedCredentials(database.db) });
  } finally {
    await database.close();
  }
}
