import { serviceMain } from '@preflight/service-kit';
import { integrationService } from './app.ts';
import { loadIntegrationConfig } from './config.ts';

await serviceMain(integrationService(), () => loadIntegrationConfig(), {
  beforeStart: (config, logger) => {
    if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: provider URLs may name private and loopback addresses');
  },
});
