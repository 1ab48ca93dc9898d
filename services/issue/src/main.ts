import { applyRuntimeFlags, loadSourceMapsNow } from '@preflight/config';
import { exitOnFatalErrors } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { migrateIssueSchema, startIssueService } from './app.ts';
import { loadIssueConfig } from './config.ts';

applyRuntimeFlags();
loadSourceMapsNow();

const config = loadIssueConfig();
const logger = createLogger('issue', { level: config.LOG_LEVEL });
exitOnFatalErrors(logger);

if (process.argv[2] === 'migrate') {
  await migrateIssueSchema(config, logger);
  logger.info({ schema: config.DB_SCHEMA }, 'migrated');
  process.exit(0);
} else {
  await startIssueService({ config, logger });
}
