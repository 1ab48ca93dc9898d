/**
 * Whether this process traces, from the standard OpenTelemetry variables (no flag of our own):
 * on when an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and neither `OTEL_SDK_DISABLED=true` nor
 * `OTEL_TRACES_EXPORTER=none` says otherwise. `OTEL_TRACES_EXPORTER=console` prints spans
 * (local debugging) without an endpoint.
 */
export interface TracingSettings {
  enabled: boolean;
  exporter: 'otlp' | 'console' | 'none';
  /** Why (for the start-up log line). */
  reason: string;
}

export function tracingSettings(env: Record<string, string | undefined> = process.env): TracingSettings {
  const off = (reason: string): TracingSettings => ({ enabled: false, exporter: 'none', reason });
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return off('OTEL_SDK_DISABLED=true');
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (exporters.includes('none')) return off('OTEL_TRACES_EXPORTER=none');
  if (exporters.includes('console')) return { enabled: true, exporter: 'console', reason: 'OTEL_TRACES_EXPORTER=console' };
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return off('no OTEL_EXPORTER_OTLP_ENDPOINT');
  return { enabled: true, exporter: 'otlp', reason: `OTLP to ${endpoint}` };
}
