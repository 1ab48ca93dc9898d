import { AsyncLocalStorage } from 'node:async_hooks';

export interface TraceContext {
  /** W3C trace id: 32 lower-case hex characters. */
  traceId: string;
  /** The span id this process uses for the current request (16 hex). */
  spanId: string;
  /** W3C trace flags, two hex characters. */
  flags: string;
}

/** Carries the current request's trace through every await, so log lines and outgoing calls find it. */
export const traceStore = new AsyncLocalStorage<TraceContext>();

export function currentTrace(): TraceContext | undefined {
  return traceStore.getStore();
}
