import { randomBytes } from 'node:crypto';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Link, type Span } from '@opentelemetry/api';
import { currentTrace, traceStore, type TraceContext } from '@preflight/log';
import { activeTraceparent, contextFromTraceparent, preflightTracer, tracingOn } from '@preflight/telemetry';
import { errorMessage } from './metrics.ts';

/** The message header that carries the W3C trace context of the request that enqueued an event. */
export const TRACEPARENT_HEADER = 'traceparent';

/**
 * The `traceparent` stored with an outbox row: the active span's (tracing on), or the request's
 * log trace (tracing off: consumers' log lines then carry the same `traceId`).
 */
export function traceparentToStore(): string | null {
  const active = activeTraceparent();
  if (active) return active;
  const t = currentTrace();
  return t ? `00-${t.traceId}-${t.spanId}-${t.flags}` : null;
}

/**
 * The relay's side: a PRODUCER span per published row, child of the stored context, ended at the
 * PubAck; its context travels as the message's `traceparent`. Without tracing the stored value
 * is passed on as is (log correlation only).
 */
export function publishTrace(subject: string, eventId: string, stored: string | null): { traceparent: string | undefined; end(err?: unknown): void } {
  if (!tracingOn()) return { traceparent: stored ?? undefined, end: () => {} };
  const span = preflightTracer().startSpan(
    `publish ${subject}`,
    { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'nats', 'messaging.operation.type': 'send', 'messaging.destination.name': subject, 'messaging.message.id': eventId } },
    contextFromTraceparent(stored),
  );
  return {
    traceparent: activeTraceparent(trace.setSpan(ROOT_CONTEXT, span)),
    end: (err) => endSpan(span, err),
  };
}

function endSpan(span: Span, err?: unknown): void {
  if (err !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
    if (err instanceof Error) span.recordException(err);
  }
  span.end();
}

/** What a consumer keeps of one event's trace while it is handled. */
export interface EventTrace {
  /** The context its handler runs in: its CONSUMER span (tracing on), or ROOT. */
  ctx: Context;
  span: Span | undefined;
  /** The log trace its handler's lines carry (the enqueuing request's trace id), if any. */
  log: TraceContext | undefined;
}

/**
 * The consumer's side: a CONSUMER span `process <subject>` per received event, child of the
 * relay's PRODUCER span (the message's `traceparent`), from its receipt to its ack, nak or term.
 */
export function receiveTrace(subject: string, eventId: string, consumer: string, traceparent: string | undefined): EventTrace {
  if (!tracingOn()) {
    const m = traceparent ? /^00-([0-9a-f]{32})-[0-9a-f]{16}-([0-9a-f]{2})$/.exec(traceparent) : null;
    return { ctx: ROOT_CONTEXT, span: undefined, log: m ? { traceId: m[1]!, spanId: randomBytes(8).toString('hex'), flags: m[2]! } : undefined };
  }
  const span = preflightTracer().startSpan(
    `process ${subject}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: { 'messaging.system': 'nats', 'messaging.operation.type': 'process', 'messaging.destination.name': subject, 'messaging.message.id': eventId, 'messaging.consumer.group.name': consumer },
    },
    contextFromTraceparent(traceparent),
  );
  const sc = span.spanContext();
  return { ctx: trace.setSpan(ROOT_CONTEXT, span), span, log: { traceId: sc.traceId, spanId: sc.spanId, flags: sc.traceFlags & 1 ? '01' : '00' } };
}

/** Runs `fn` in the event's trace (its span active, its trace id on log lines). */
export function inEventTrace<T>(t: EventTrace | undefined, fn: () => T): T {
  if (!t) return fn();
  const run = t.log ? () => traceStore.run(t.log!, fn) : fn;
  return t.span ? context.with(t.ctx, run) : run();
}

/**
 * Runs a transaction of several events in a span of its own (`process batch`) linked to each
 * event's span: what the handler does for all of them at once (one statement, one commit) is
 * shown once, and each event's trace leads to it through the link.
 */
export function inBatchTrace<T>(consumer: string, traces: Array<EventTrace | undefined>, fn: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return fn();
  const links: Link[] = traces.flatMap((t) => (t?.span ? [{ context: t.span.spanContext() }] : []));
  return preflightTracer().startActiveSpan(
    `${consumer} process batch`,
    { kind: SpanKind.CONSUMER, links, attributes: { 'messaging.system': 'nats', 'messaging.operation.type': 'process', 'messaging.batch.message_count': traces.length, 'messaging.consumer.group.name': consumer } },
    ROOT_CONTEXT,
    (span) =>
      fn().then(
        (v) => (span.end(), v),
        (err: unknown) => {
          endSpan(span, err);
          throw err;
        },
      ),
  );
}

/** Ends an event's span with how it was settled. */
export function settleTrace(t: EventTrace | undefined, outcome: string, err?: unknown): void {
  if (!t?.span) return;
  t.span.setAttribute('preflight.consumer.outcome', outcome);
  endSpan(t.span, err);
  t.span = undefined;
}
