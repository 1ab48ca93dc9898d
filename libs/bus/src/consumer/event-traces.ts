import type { JsMsg } from '@nats-io/jetstream';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER } from '../outbox.ts';
import { inBatchTrace, inEventTrace, receiveTrace, settleTrace, TRACEPARENT_HEADER, type EventTrace } from '../tracing.ts';
import type { ConsumedEvent } from './types.ts';

/** A message's event as handlers see it. */
export function eventOf(m: JsMsg): ConsumedEvent {
  return {
    id: m.headers?.get('Nats-Msg-Id') || `${m.info.stream}:${m.seq}`,
    subject: m.subject,
    type: m.headers?.get(EVENT_TYPE_HEADER) || undefined,
    orgId: m.headers?.get(ORG_ID_HEADER) || undefined,
    payload: m.data,
    deliveryCount: m.info.deliveryCount,
    redelivered: m.info.redelivered,
    streamSequence: m.seq,
    traceparent: m.headers?.get(TRACEPARENT_HEADER) || undefined,
  };
}

/** Each received event's trace (its CONSUMER span, from receipt to settling), by event object. */
export class EventTraces {
  readonly #traces = new WeakMap<ConsumedEvent, EventTrace>();

  constructor(private readonly durable: string) {}

  /** The message's event, its trace started. */
  receive(m: JsMsg): ConsumedEvent {
    const event = eventOf(m);
    this.#traces.set(event, receiveTrace(event.subject, event.id, this.durable, event.traceparent));
    return event;
  }

  /** Runs `fn` in the event's trace. */
  within<T>(event: ConsumedEvent, fn: () => T): T {
    return inEventTrace(this.#traces.get(event), fn);
  }

  /** Runs `fn` in a span linked to the traces of several events. */
  withinBatch<T>(events: ConsumedEvent[], fn: () => Promise<T>): Promise<T> {
    return inBatchTrace(
      this.durable,
      events.map((e) => this.#traces.get(e)),
      fn,
    );
  }

  /** Ends the event's trace with its outcome. */
  settle(event: ConsumedEvent, outcome: string, err?: unknown): void {
    settleTrace(this.#traces.get(event), outcome, err);
  }
}
