import { loadSourceMapsNow } from '@preflight/config';
import { exitOnFatalErrors } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { migrateOnly, startGateway } from './app.ts';
import { loadGatewayConfig } from './config.ts';

// Unlike the other services, the gateway keeps V8's allocation-site pretenuring
// (libs/config runtime-flags.ts): it reads no query results per request, and turned off it
// made the gateway's young GCs longer (~3.0 → ~3.8 ms) with no less promoted.
loadSourceMapsNow();

const config = loadGatewayConfig();
const logger = createLogger('gateway', { level: config.LOG_LEVEL });
exitOnFatalErrors(logger);

if (process.argv[2] === 'migrate') {
  await migrateOnly(config, logger);
  logger.info({ schema: config.DB_SCHEMA }, 'migrations applied');
  process.exit(0);
}

await startGateway(config, { logger });
