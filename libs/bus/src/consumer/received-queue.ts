import type { JsMsg } from '@nats-io/jetstream';
import type { Sleeper } from '../sleeper.ts';
import type { ConsumedEvent } from './types.ts';

/** A received message, its event, and whether `onReceived`'s work on it has settled (it may join a batch). */
export interface Received {
  m: JsMsg;
  event: ConsumedEvent;
  ready: boolean;
}

/** Received messages in arrival order; batches take the ready ones. */
export class ReceivedQueue {
  readonly items: Received[] = [];
  ready = 0;

  /** Up to `n` ready items, oldest first, taken out of the queue. */
  take(n: number): Received[] {
    const taken: Received[] = [];
    for (let i = 0; i < this.items.length && taken.length < n; ) {
      if (this.items[i]!.ready) taken.push(...this.items.splice(i, 1));
      else i += 1;
    }
    this.ready -= taken.length;
    return taken;
  }
}

/**
 * Waits until `queue` holds `batchSize` ready events, `ms` passed, `cut` resolved or `ended()`
 * says the subscription is over, whichever first. `arrived` is woken on each arrival.
 */
export async function gather(queue: ReceivedQueue, arrived: Sleeper, batchSize: number, ms: number, cut: Promise<unknown> | undefined, ended: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  let cutShort = false;
  void cut?.then(() => {
    cutShort = true;
    arrived.wake();
  });
  while (queue.ready < batchSize && !cutShort && !ended() && Date.now() < deadline) await arrived.wait(deadline - Date.now());
}
