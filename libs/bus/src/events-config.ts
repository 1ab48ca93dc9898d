import { z } from 'zod';
import { env } from '@preflight/config';
import { allSubjects } from '@preflight/events';
import type { EnsureStreamOptions, NatsAuthConfig } from './nats.ts';

/**
 * Optional files for a NATS server that requires them (mounted with extraVolumes; docs/operations.md,
 * "NATS credentials and TLS"): a `.creds` file, the server's CA, a client certificate and key.
 */
export const natsAuthConfigShape = {
  NATS_CREDS_FILE: env.optionalString(),
  NATS_TLS_CA_FILE: env.optionalString(),
  NATS_TLS_CERT_FILE: env.optionalString(),
  NATS_TLS_KEY_FILE: env.optionalString(),
};

/**
 * The environment every service on the event stream reads, spread into its own config shape.
 * One definition, because every producer makes sure the stream exists at start and they must
 * all ask for the same settings (ensureStream updates a stream, so differing ones would flap).
 */
export const eventsConfigShape = {
  NATS_URL: env.url(['nats', 'tls'], 'nats://127.0.0.1:4222'),
  EVENTS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a JetStream stream name (A-Z, a-z, 0-9, _, -)')
    .default('PREFLIGHT_EVENTS'),
  // Subjects are `<prefix>.<owner>.<event>`; tests use an isolated prefix.
  EVENTS_SUBJECT_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated subject tokens (A-Z, a-z, 0-9, _, -), no wildcards')
    .default('preflight'),
  EVENTS_STREAM_REPLICAS: env.int(1, { min: 1, max: 5 }),
  EVENTS_STREAM_MAX_AGE_HOURS: env.int(168, { min: 1, max: 24 * 365 }),
  // `service`: each service creates the stream or updates it to the settings above at start.
  // `external`: something else owns it (the umbrella chart's hook Job, NACK, an operator); the
  // service only checks that it exists and captures its subjects, and changes nothing.
  EVENTS_STREAM_MANAGED: z.enum(['service', 'external']).default('service'),
  ...natsAuthConfigShape,
};

export interface EventsConfig extends NatsAuthConfig {
  NATS_URL: string;
  EVENTS_STREAM: string;
  EVENTS_SUBJECT_PREFIX: string;
  EVENTS_STREAM_REPLICAS: number;
  EVENTS_STREAM_MAX_AGE_HOURS: number;
  EVENTS_STREAM_MANAGED?: 'service' | 'external';
}

/** How long JetStream remembers a `Nats-Msg-Id` to drop a re-published event. */
export const DUPLICATE_WINDOW_MS = 2 * 60_000;

export function eventStreamOptions(config: EventsConfig): EnsureStreamOptions {
  return {
    name: config.EVENTS_STREAM,
    subjects: [allSubjects(config.EVENTS_SUBJECT_PREFIX)],
    replicas: config.EVENTS_STREAM_REPLICAS,
    maxAgeMs: config.EVENTS_STREAM_MAX_AGE_HOURS * 3_600_000,
    duplicateWindowMs: DUPLICATE_WINDOW_MS,
    external: config.EVENTS_STREAM_MANAGED === 'external',
  };
}
