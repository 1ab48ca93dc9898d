import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { currentTrace, traceStore, type TraceContext } from '@preflight/log';
import { activeTraceparent, tracingOn } from '@preflight/telemetry';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** Parses a W3C `traceparent`; undefined for anything the Trace Context spec says to ignore. */
export function parseTraceparent(header: string | undefined): TraceContext | undefined {
  if (!header) return undefined;
  const m = TRACEPARENT.exec(header.trim().toLowerCase());
  if (!m) return undefined;
  const [, version, traceId, parentId, flags, rest] = m as unknown as [string, string, string, string, string, string?];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || parentId === ZERO_SPAN) return undefined;
  return { traceId, spanId: parentId, flags };
}

/**
 * Random bytes are drawn 4 KB at a time, one fill for about 170 requests: each fill is a
 * synchronous call into the system's generator (docs/benchmarks-history.md has the profile).
 */
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomOffset = 0;

function randomHex(bytes: number): string {
  if (randomOffset + bytes > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    randomOffset = 0;
  }
  const hex = randomPool.toString('hex', randomOffset, randomOffset + bytes);
  randomOffset += bytes;
  return hex;
}

export function newSpanId(): string {
  return randomHex(8);
}

export function newTrace(): TraceContext {
  return { traceId: randomHex(16), spanId: newSpanId(), flags: '01' };
}

/**
 * The `traceparent` to send on a call made while handling the current request. With tracing on
 * (libs/telemetry) it is undefined: the undici instrumentation adds the header itself, naming
 * its client span, and a second one would make the receiver's header invalid (two values).
 */
export function outgoingTraceparent(trace: TraceContext | undefined = currentTrace()): string | undefined {
  if (tracingOn()) return undefined;
  return trace ? `00-${trace.traceId}-${trace.spanId}-${trace.flags}` : undefined;
}

/**
 * Joins the caller's trace when it sent a valid `traceparent` (this hop gets a span of its
 * own), or starts one. Everything downstream of this middleware runs inside the trace. With
 * tracing on, the http instrumentation has already joined or started the trace and opened this
 * hop's server span: log lines and `X-Trace-Id` then carry that span's ids (the ones a tracing
 * backend shows), so a log line's `traceId` finds its trace.
 */
export const traceMiddleware: RequestHandler = (req, res, next) => {
  const active = tracingOn() ? parseTraceparent(activeTraceparent()) : undefined;
  if (active) {
    res.setHeader('X-Trace-Id', active.traceId);
    traceStore.run(active, next);
    return;
  }
  const incoming = parseTraceparent(req.header('traceparent'));
  const trace: TraceContext = incoming ? { ...incoming, spanId: newSpanId() } : newTrace();
  res.setHeader('X-Trace-Id', trace.traceId);
  traceStore.run(trace, next);
};
