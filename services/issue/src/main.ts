import { startTelemetry } from '@preflight/telemetry';

// Tracing first, when configured (OTEL_EXPORTER_OTLP_ENDPOINT; off by default): its hooks must be
// in place before express, pg and the rest are imported, hence the dynamic imports below.
const telemetry = await startTelemetry('issue');
const { serviceMain } = await import('@preflight/service-kit');
const { issueService } = await import('./app.ts');
const { loadIssueConfig } = await import('./config.ts');

await serviceMain(issueService, () => loadIssueConfig(), { telemetry });
