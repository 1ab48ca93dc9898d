import { connect } from '@nats-io/transport-node';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import type { Logger } from '@preflight/log';

export interface ConnectNatsOptions {
  url: string;
  /** Shown in the server's connection list (`nats server report connections`). */
  name: string;
  logger: Logger;
}

/**
 * A NATS connection that never gives up reconnecting (JetStream publishes and pull consumers
 * resume once it is back) and logs every status change. Wait for the first connection too,
 * so a service started before NATS comes up instead of crashing.
 */
export async function connectNats(opts: ConnectNatsOptions): Promise<NatsConnection> {
  const nc = await connect({
    servers: opts.url,
    name: opts.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    waitOnFirstConnect: true,
    // Otherwise every request (each JetStream publish of the relay) builds two Error objects up
    // front to carry the caller's stack, used or not; our logs carry the message and the event.
    noAsyncTraces: true,
  });
  const log = opts.logger.child({ component: 'nats' });
  log.info({ server: nc.getServer() }, 'nats connected');
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'error') log.warn({ status: s.type, data: 'server' in s ? s.server : undefined }, 'nats status');
      else if (s.type === 'reconnect') log.info({ server: 'server' in s ? s.server : undefined }, 'nats reconnected');
      else if (s.type !== 'ping' && s.type !== 'update') log.debug({ status: s.type }, 'nats status');
    }
  })().catch(() => undefined);
  return nc;
}

export interface EnsureStreamOptions {
  name: string;
  subjects: string[];
  /** 1 on a single server; 3 in a cluster. */
  replicas?: number;
  /** How long events are kept, in ms (default 7 days). */
  maxAgeMs?: number;
  /**
   * The window within which a re-published `Nats-Msg-Id` is dropped, in ms (default 2 min).
   * Must exceed the time the outbox relay can take to re-publish after a crash.
   */
  duplicateWindowMs?: number;
  /**
   * The stream is provisioned elsewhere (EVENTS_STREAM_MANAGED=external): only check that it
   * exists and captures `subjects`; never create or update it.
   */
  external?: boolean;
}

/**
 * Creates the stream, or updates it to this configuration when it exists: idempotent, safe
 * to run from every replica at start.
 */
export async function ensureStream(jsm: JetStreamManager, opts: EnsureStreamOptions): Promise<StreamInfo> {
  const config = {
    name: opts.name,
    subjects: opts.subjects,
    num_replicas: opts.replicas ?? 1,
    max_age: nanos(opts.maxAgeMs ?? 7 * 24 * 3600_000),
    duplicate_window: nanos(opts.duplicateWindowMs ?? 120_000),
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
  } satisfies Partial<StreamConfig>;
  if (opts.external) return checkStream(jsm, opts);
  const update = () => jsm.streams.update(opts.name, { subjects: config.subjects, num_replicas: config.num_replicas, max_age: config.max_age, duplicate_window: config.duplicate_window });
  if (await streamExists(jsm, opts.name)) return update();
  try {
    return await jsm.streams.add(config);
  } catch (err) {
    // Another replica created it in between (with another config): fall back to an update.
    if (await streamExists(jsm, opts.name)) return update();
    throw err;
  }
}

async function checkStream(jsm: JetStreamManager, opts: EnsureStreamOptions): Promise<StreamInfo> {
  if (!(await streamExists(jsm, opts.name))) throw new Error(`stream ${opts.name} does not exist; it is provisioned outside the service (EVENTS_STREAM_MANAGED=external): create it first`);
  const info = await jsm.streams.info(opts.name);
  const missing = opts.subjects.filter((s) => !(info.config.subjects ?? []).includes(s));
  if (missing.length) throw new Error(`stream ${opts.name} does not capture ${missing.join(', ')} (it has ${(info.config.subjects ?? []).join(', ') || 'none'}); fix its provisioning`);
  return info;
}

async function streamExists(jsm: JetStreamManager, name: string): Promise<boolean> {
  try {
    await jsm.streams.info(name);
    return true;
  } catch (err) {
    if (err instanceof JetStreamApiError && err.status === 404) return false;
    if (err instanceof Error && /stream not found/i.test(err.message)) return false;
    throw err;
  }
}
