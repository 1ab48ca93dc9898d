import { startTelemetry } from '@preflight/telemetry';

// Tracing first, when configured (OTEL_EXPORTER_OTLP_ENDPOINT; off by default): its hooks must be
// in place before express, pg and the rest are imported, hence the dynamic imports below.
const telemetry = await startTelemetry('gateway');
const { serviceMain } = await import('@preflight/service-kit');
const { gatewayService } = await import('./app.ts');
const { loadGatewayConfig } = await import('./config.ts');

// The gateway keeps V8's allocation-site pretenuring (libs/config runtime-flags.ts): it reads
// no query results per request, and without it its young GCs were longer (docs/benchmarks-history.md).
await serviceMain(gatewayService(), () => loadGatewayConfig(), { runtimeFlags: false, telemetry });
