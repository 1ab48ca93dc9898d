import type { Registry } from 'prom-client';
import { counter, gauge, histogram } from '../metrics.ts';

/** The consumer's metrics, labelled by durable name; shared by every consumer of a registry. */
export function consumerMetrics(registry: Registry) {
  return {
    processed: counter(registry, 'consumer_processed_total', 'Events handled, by consumer and outcome (success, duplicate, skipped, failure, dead).', ['consumer', 'outcome']),
    redeliveries: counter(registry, 'consumer_redeliveries_total', 'Events received again after a nak, a timeout or a crash.', ['consumer']),
    lag: gauge(registry, 'consumer_lag', 'Events in the stream not yet delivered to the consumer (num_pending).', ['consumer']),
    duration: histogram(registry, 'consumer_processing_duration_seconds', 'Time to handle one transaction (a batch of events, or one), inbox and commit included.', ['consumer'], [
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
    ]),
    batchEvents: histogram(registry, 'consumer_batch_size', 'Events handled per transaction.', ['consumer'], [1, 2, 4, 8, 16, 32, 64, 128]),
    fallbacks: counter(registry, 'consumer_batch_fallbacks_total', 'Batches rolled back and handled again one event per transaction.', ['consumer']),
  };
}

export type ConsumerMetrics = ReturnType<typeof consumerMetrics>;
