import { applyRuntimeFlags, loadSourceMapsNow } from '@preflight/config';
import { exitOnFatalErrors } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { migrateDeliverySchema, startDeliveryService } from './app.ts';
import { loadDeliveryConfig } from './config.ts';

applyRuntimeFlags();
loadSourceMapsNow();

const config = loadDeliveryConfig();
const logger = createLogger('delivery', { level: config.LOG_LEVEL });
exitOnFatalErrors(logger);

if (process.argv[2] === 'migrate') {
  await migrateDeliverySchema(config, logger);
  logger.info({ schema: config.DB_SCHEMA }, 'migrated');
  process.exit(0);
} else {
  if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: deliveries may go to private and loopback addresses');
  await startDeliveryService({ config, logger });
}
