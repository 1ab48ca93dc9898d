import { context, ROOT_CONTEXT, trace, type Context, type Tracer } from '@opentelemetry/api';

/**
 * The light half of @preflight/telemetry: only `@opentelemetry/api`, which does nothing (a
 * no-op tracer, no context manager) until `startTelemetry` registers the SDK. Libraries (http,
 * bus) use these helpers whether tracing is on or not; with it off they cost a function call.
 */

let on = false;

/** Whether a tracer provider was registered in this process (`startTelemetry`, or a test's). */
export function tracingOn(): boolean {
  return on;
}

/** Marks tracing on (or off): `startTelemetry` does; tests that register their own provider too. */
export function setTracingOn(value: boolean): void {
  on = value;
}

/** The tracer of Preflight's own spans (the outbox relay, the consumers). */
export function preflightTracer(): Tracer {
  return trace.getTracer('@preflight/bus');
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C `traceparent` of the active span, or undefined without one (always, with tracing off). */
export function activeTraceparent(ctx: Context = context.active()): string | undefined {
  const sc = trace.getSpanContext(ctx);
  if (!sc || !trace.isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags & 1 ? '01' : '00'}`;
}

/** A context whose parent is the remote span a `traceparent` names (`base` when it names none). */
export function contextFromTraceparent(traceparent: string | null | undefined, base: Context = ROOT_CONTEXT): Context {
  const m = traceparent ? TRACEPARENT.exec(traceparent.trim().toLowerCase()) : null;
  if (!m) return base;
  const spanContext = { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16) & 1, isRemote: true };
  if (!trace.isSpanContextValid(spanContext)) return base;
  return trace.setSpanContext(base, spanContext);
}
