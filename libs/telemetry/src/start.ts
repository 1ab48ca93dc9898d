import { setTracingOn } from './context.ts';
import { tracingSettings } from './settings.ts';

export interface Telemetry {
  enabled: boolean;
  /** Flushes the spans still buffered and stops the exporter (at shutdown). */
  shutdown(): Promise<void>;
}

const OFF: Telemetry = { enabled: false, shutdown: async () => {} };

/** Probes and scrapes make no spans. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts tracing when the environment asks for it (`tracingSettings`), before the service's
 * modules are imported: call it first in `main.ts` and import the rest afterwards, dynamically.
 * With tracing off nothing of the SDK is loaded (every import here is dynamic) and no hook is
 * registered: the service runs exactly as without this call.
 *
 * With it on:
 * 1. import-in-the-middle's loader hook is registered (`module.register`), limited to the
 *    modules the instrumentations name (createAddHookMessageChannel), so express, pg, ioredis
 *    and node:http imported afterwards are patched. It works under tsx (dev, e2e) and for the
 *    image's bundle, whose third-party packages stay external and are imported by the bundle's
 *    chunks loaded after this call (scripts/build-service.mjs splits at the dynamic import).
 * 2. A NodeTracerProvider with the W3C propagator and an AsyncLocalStorage context manager;
 *    the sampler from OTEL_TRACES_SAMPLER/…_ARG (default parentbased_always_on); a batch
 *    processor (OTEL_BSP_*) into the OTLP/HTTP exporter (OTEL_EXPORTER_OTLP_*), or the console.
 * 3. Instrumentations: http (server spans; probes and scrapes skipped), express (route names;
 *    no span per middleware), pg and ioredis (only inside a traced operation: the relay's and
 *    the workers' polling make no root traces), undici (client spans and the `traceparent` on
 *    every outgoing request; it listens on undici's diagnostics channels, so bundling does not
 *    matter to it).
 */
export async function startTelemetry(service: string, opts: { env?: Record<string, string | undefined>; version?: string } = {}): Promise<Telemetry> {
  const env = opts.env ?? process.env;
  const settings = tracingSettings(env);
  if (!settings.enabled) return OFF;

  const { register } = await import('node:module');
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const [{ NodeTracerProvider, BatchSpanProcessor, ConsoleSpanExporter }, { OTLPTraceExporter }, { detectResources, envDetector, resourceFromAttributes }, semconv, { registerInstrumentations }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/semantic-conventions'),
      import('@opentelemetry/instrumentation'),
    ]);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over these defaults.
  const resource = resourceFromAttributes({
    [semconv.ATTR_SERVICE_NAME]: service,
    'service.namespace': 'preflight',
    ...(opts.version ?? env.PREFLIGHT_VERSION ? { [semconv.ATTR_SERVICE_VERSION]: opts.version ?? env.PREFLIGHT_VERSION } : {}),
  }).merge(detectResources({ detectors: [envDetector] }));
  const exporter = settings.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  provider.register();
  registerInstrumentations({ tracerProvider: provider, instrumentations: await instrumentations() });
  await waitForAllMessagesAcknowledged();
  setTracingOn(true);
  return {
    enabled: true,
    async shutdown() {
      await provider.shutdown().catch(() => undefined);
    },
  };
}

/** The instrumentations, configured as described on `startTelemetry`. */
export async function instrumentations() {
  const [{ HttpInstrumentation }, { ExpressInstrumentation, ExpressLayerType }, { PgInstrumentation }, { IORedisInstrumentation }, { UndiciInstrumentation }] = await Promise.all([
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-undici'),
  ]);
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!),
      // Outgoing calls go through undici (its own instrumentation); node:http clients are the
      // OTLP exporter's own, which must not trace itself.
      ignoreOutgoingRequestHook: () => true,
      // Routes express does not know (the gateway's own dispatcher) name the span by the label
      // the request metrics use (`res.locals.routeLabel`, libs/http metrics.ts).
      applyCustomAttributesOnSpan: (span, req, res) => {
        const route = (res as { locals?: { routeLabel?: unknown } }).locals?.routeLabel;
        if (typeof route !== 'string' || !('method' in req)) return;
        span.setAttribute('http.route', route);
        span.updateName(`${req.method} ${route}`);
      },
    }),
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    // Statements are named (prepared, libs/db): the span is named by what it does instead.
    new PgInstrumentation({ requireParentSpan: true, requestHook: (span, info) => span.updateName(statementName(info.query.text)) }),
    new IORedisInstrumentation({ requireParentSpan: true }),
    new UndiciInstrumentation(),
  ];
}

/** `INSERT outbox`, `SELECT issues`, `BEGIN`…: a statement's verb and first table, for its span's name. */
export function statementName(text: string | undefined): string {
  const sql = (text ?? '').replace(/\s+/g, ' ').trim();
  const verb = /^(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const table = (verb === 'UPDATE' ? /^update\s+("?[\w.]+"?)/i : /\b(?:from|into|join)\s+("?[\w.]+"?)/i).exec(sql)?.[1]?.replaceAll('"', '');
  return table ? `${verb} ${table}` : verb;
}
