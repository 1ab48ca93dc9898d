import { applyRuntimeFlags, loadSourceMapsNow } from '@preflight/config';
import { exitOnFatalErrors } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { migrateWebhookSchema, startWebhookService } from './app.ts';
import { loadWebhookConfig } from './config.ts';

applyRuntimeFlags();
loadSourceMapsNow();

const config = loadWebhookConfig();
const logger = createLogger('webhook', { level: config.LOG_LEVEL });
exitOnFatalErrors(logger);

if (process.argv[2] === 'migrate') {
  await migrateWebhookSchema(config, logger);
  logger.info({ schema: config.DB_SCHEMA }, 'migrated');
  process.exit(0);
} else {
  if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhook URLs may name private and loopback addresses');
  await startWebhookService({ config, logger });
}
