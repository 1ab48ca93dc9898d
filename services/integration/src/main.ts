import { startTelemetry } from '@preflight/telemetry';

// Tracing first, when configured (OTEL_EXPORTER_OTLP_ENDPOINT; off by default): its hooks must be
// in place before express, pg and the rest are imported, hence the dynamic imports below.
const telemetry = await startTelemetry('integration');
const { serviceMain } = await import('@preflight/service-kit');
const { integrationService } = await import('./app.ts');
const { loadIntegrationConfig } = await import('./config.ts');

await serviceMain(integrationService(), () => loadIntegrationConfig(), {
  telemetry,
  // The operator's command after an at-rest key rotation (docs/operations.md): no server, no NATS.
  commands: { 'reencrypt-secrets': async (config, args) => (await import('./secrets/reencrypt.ts')).reencryptCommand(config, args) },
  beforeStart: (config, logger) => {
    if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: provider URLs may name private and loopback addresses');
  },
});
