import { applyRuntimeFlags, loadSourceMapsNow } from '@preflight/config';
import { exitOnFatalErrors } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { migrateCampaignSchema, openCampaignDatabase, SERVICE_NAME, startCampaignService } from './app.ts';
import { loadCampaignConfig } from './config.ts';

applyRuntimeFlags();
loadSourceMapsNow();

const config = loadCampaignConfig();
const logger = createLogger(SERVICE_NAME, { level: config.LOG_LEVEL });
exitOnFatalErrors(logger);

if (process.argv[2] === 'migrate') {
  // The Helm hook Job's entry: bring the schema up to date, then exit.
  const database = openCampaignDatabase(config);
  try {
    await migrateCampaignSchema(database, logger);
  } finally {
    await database.close();
  }
} else {
  await startCampaignService(config, { logger });
}
