/**
 * `npm run secrets:reencrypt [-- --check] [-- --only=webhook|integration]`: after an at-rest key
 * rotation, seals every stored secret of the webhook and integration services under their
 * ring's active key (docs/operations.md, "Rotating the at-rest keys"); `--check` only reports.
 * The same as `node main.js reencrypt-secrets` in each service's image, for a local system:
 * DATABASE_URL and the key rings from the environment, else the rings `npm start` keeps in the
 * database. Prints one JSON line per service; exits 1 when some secret no key opens.
 */
import { loadIntegrationConfig } from '../services/integration/src/config.ts';
import { reencryptCommand as reencryptIntegration } from '../services/integration/src/secrets/reencrypt.ts';
import { loadWebhookConfig } from '../services/webhook/src/config.ts';
import { reencryptCommand as reencryptWebhook } from '../services/webhook/src/secrets/reencrypt.ts';
import { localKeyRings } from './lib/local-keys.ts';

const args = process.argv.slice(2);
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/preflight';
const stored = process.env.WEBHOOK_SECRET_KEYS && process.env.INTEGRATION_SECRET_KEYS ? undefined : await localKeyRings(DATABASE_URL);

let code = 0;
if (!only || only === 'webhook') {
  const config = loadWebhookConfig({ DATABASE_URL, DB_SCHEMA: process.env.WEBHOOK_DB_SCHEMA, WEBHOOK_SECRET_KEYS: process.env.WEBHOOK_SECRET_KEYS ?? stored!.webhook });
  code = Math.max(code, await reencryptWebhook(config, args));
}
if (!only || only === 'integration') {
  const config = loadIntegrationConfig({ DATABASE_URL, DB_SCHEMA: process.env.INTEGRATION_DB_SCHEMA, INTEGRATION_SECRET_KEYS: process.env.INTEGRATION_SECRET_KEYS ?? stored!.integration });
  code = Math.max(code, await reencryptIntegration(config, args));
}
process.exit(code);
