import { startTelemetry } from '@preflight/telemetry';

// Tracing first, when configured (OTEL_EXPORTER_OTLP_ENDPOINT; off by default): its hooks must be
// in place before express, pg and the rest are imported, hence the dynamic imports below.
const telemetry = await startTelemetry('console');
const { serviceMain } = await import('@preflight/service-kit');
const { consoleService } = await import('./app.ts');
const { loadConsoleConfig } = await import('./config.ts');

await serviceMain(consoleService(), () => loadConsoleConfig(), {
  telemetry,
  beforeStart: (config, logger) => {
    if (config.OIDC_ISSUER_URL) logger.info({ issuer: config.OIDC_ISSUER_URL }, 'single sign-on through OpenID Connect is on');
    if (!config.CONSOLE_PUBLIC_ORIGIN.startsWith('https://') && !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|$)/.test(config.CONSOLE_PUBLIC_ORIGIN)) {
      logger.warn({ origin: config.CONSOLE_PUBLIC_ORIGIN }, 'CONSOLE_PUBLIC_ORIGIN is plain http on a non-local host: browsers will not keep the Secure session cookie');
    }
  },
});
