import { serviceMain } from '@preflight/service-kit';
import { deliveryService } from './app.ts';
import { loadDeliveryConfig } from './config.ts';

await serviceMain(deliveryService(), () => loadDeliveryConfig(), {
  beforeStart: (config, logger) => {
    if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: deliveries may go to private and loopback addresses');
  },
});
