import { AckPolicy, DeliverPolicy, type ConsumerConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { ConsumerCommonOptions } from './types.ts';

const defaultRetryDelay = (n: number) => Math.min(60_000, 1_000 * 2 ** Math.max(0, n - 1));

/** A consumer's options with their defaults and bounds applied. */
export function consumerSettings(opts: Pick<ConsumerCommonOptions<unknown>, 'concurrency' | 'batchSize' | 'lingerMs' | 'gatherMs' | 'ackWaitMs' | 'maxDeliver' | 'retryDelayMs'>) {
  return {
    concurrency: Math.max(1, opts.concurrency ?? 4),
    batchSize: Math.max(1, opts.batchSize ?? 32),
    lingerMs: Math.max(0, opts.lingerMs ?? 5),
    gatherMs: Math.max(0, opts.gatherMs ?? 0),
    ackWaitMs: opts.ackWaitMs ?? 30_000,
    maxDeliver: opts.maxDeliver ?? 20,
    retryDelay: opts.retryDelayMs ?? defaultRetryDelay,
  };
}

export type ConsumerSettings = ReturnType<typeof consumerSettings>;

/** The durable's server-side configuration: explicit acks, and room for every batch slot twice over. */
export function durableConfig(durable: string, filterSubjects: string[], s: ConsumerSettings): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(s.ackWaitMs),
    max_deliver: s.maxDeliver,
    max_ack_pending: Math.max(1000, s.concurrency * s.batchSize * 2),
    ...(filterSubjects.length === 1 ? { filter_subject: filterSubjects[0] } : { filter_subjects: filterSubjects }),
  };
}

/** What becomes of an event whose handling failed: given up after its last allowed delivery, else retried after a delay. */
export function afterFailure(deliveryCount: number, s: Pick<ConsumerSettings, 'maxDeliver' | 'retryDelay'>): { kind: 'dead' } | { kind: 'retry'; delayMs: number } {
  if (s.maxDeliver > 0 && deliveryCount >= s.maxDeliver) return { kind: 'dead' };
  return { kind: 'retry', delayMs: s.retryDelay(deliveryCount) };
}
