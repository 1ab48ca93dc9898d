import { startTelemetry } from '@preflight/telemetry';

// Tracing first, when configured (OTEL_EXPORTER_OTLP_ENDPOINT; off by default): its hooks must be
// in place before express, pg and the rest are imported, hence the dynamic imports below.
const telemetry = await startTelemetry('delivery');
const { serviceMain } = await import('@preflight/service-kit');
const { deliveryService } = await import('./app.ts');
const { loadDeliveryConfig } = await import('./config.ts');

await serviceMain(deliveryService(), () => loadDeliveryConfig(), {
  telemetry,
  beforeStart: (config, logger) => {
    if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: deliveries may go to private and loopback addresses');
  },
});
