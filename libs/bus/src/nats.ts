import { readFileSync } from 'node:fs';
import { connect, type NodeConnectionOptions } from '@nats-io/transport-node';
import { credsAuthenticator, nanos, type NatsConnection } from '@nats-io/nats-core';
import { JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import type { Logger } from '@preflight/log';

export interface ConnectNatsOptions {
  url: string;
  /** Shown in the server's connection list (`nats server report connections`). */
  name: string;
  logger: Logger;
  /** A credentials file and client TLS (events-config.ts `natsAuthConfigShape`); none by default. */
  auth?: NatsAuthConfig | undefined;
}

/** Files mounted into the pod (docs/operations.md, "NATS credentials and TLS"). */
export interface NatsAuthConfig {
  /** A `.creds` file (user JWT and nkey seed), as `nsc generate creds` writes it. */
  NATS_CREDS_FILE?: string | undefined;
  /** The CA that signed the server's certificate (else Node's trusted CAs). */
  NATS_TLS_CA_FILE?: string | undefined;
  /** A client certificate and its key, for a server that verifies clients (both or neither). */
  NATS_TLS_CERT_FILE?: string | undefined;
  NATS_TLS_KEY_FILE?: string | undefined;
}

/** A file named by `variable` that cannot be used: thrown at start, before any connection. */
export class NatsAuthConfigError extends Error {}

function readable(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new NatsAuthConfigError(`${variable}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/**
 * The authenticator and TLS options for `auth`. Every file is read once here, so a wrong path
 * or a file that is not a creds file stops the service at start with the variable's name instead
 * of a reconnect loop; the client reads them again at each (re)connect, so a rotated file counts.
 */
export function natsAuthOptions(auth: NatsAuthConfig = {}): Pick<NodeConnectionOptions, 'authenticator' | 'tls'> {
  const out: Pick<NodeConnectionOptions, 'authenticator' | 'tls'> = {};
  const creds = auth.NATS_CREDS_FILE;
  if (creds) {
    const text = readable('NATS_CREDS_FILE', creds).toString('utf8');
    if (!/-----BEGIN NATS USER JWT-----/.test(text) || !/-----BEGIN USER NKEY SEED-----/.test(text)) {
      throw new NatsAuthConfigError(`NATS_CREDS_FILE: ${creds} is not a NATS credentials file (no user JWT and nkey seed blocks)`);
    }
    out.authenticator = credsAuthenticator(() => readFileSync(creds));
  }
  const { NATS_TLS_CA_FILE: caFile, NATS_TLS_CERT_FILE: certFile, NATS_TLS_KEY_FILE: keyFile } = auth;
  if (Boolean(certFile) !== Boolean(keyFile)) throw new NatsAuthConfigError('NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together: set both or neither');
  if (caFile) readable('NATS_TLS_CA_FILE', caFile);
  if (certFile && keyFile) {
    readable('NATS_TLS_CERT_FILE', certFile);
    readable('NATS_TLS_KEY_FILE', keyFile);
  }
  if (caFile || certFile) out.tls = { ...(caFile ? { caFile } : {}), ...(certFile && keyFile ? { certFile, keyFile } : {}) };
  return out;
}

/**
 * A NATS connection that never gives up reconnecting (JetStream publishes and pull consumers
 * resume once it is back) and logs every status change; with `auth`, a creds file and client
 * TLS. Wait for the first connection too, so a service started before NATS comes up instead of
 * crashing.
 */
export async function connectNats(opts: ConnectNatsOptions): Promise<NatsConnection> {
  const nc = await connect({
    servers: opts.url,
    name: opts.name,
    ...natsAuthOptions(opts.auth),
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
