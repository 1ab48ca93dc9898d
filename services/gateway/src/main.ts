import { applyRuntimeFlags } from '@preflight/config';
import { exitOnFatalErrors } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { migrateOnly, startGateway } from './app.ts';
import { loadGatewayConfig } from './config.ts';

applyRuntimeFlags();

const config = loadGatewayConfig();
const logger = createLogger('gateway', { level: config.LOG_LEVEL });
exitOnFatalErrors(logger);

if (process.argv[2] === 'migrate') {
  await migrateOnly(config, logger);
  logger.info({ schema: config.DB_SCHEMA }, 'migrations applied');
  process.exit(0);
}

await startGateway(config, { logger });
