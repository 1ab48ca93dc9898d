import { serviceMain } from '@preflight/service-kit';
import { webhookService } from './app.ts';
import { loadWebhookConfig } from './config.ts';

await serviceMain(webhookService(), () => loadWebhookConfig(), {
  beforeStart: (config, logger) => {
    if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhook URLs may name private and loopback addresses');
  },
});
