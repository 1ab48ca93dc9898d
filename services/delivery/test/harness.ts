import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connectNats } from '@preflight/bus';
import { MAX_DELIVERY_OUTCOMES_PER_CALL } from '@preflight/contract';
import { encodeEndpointsChanged, endpointsChangedSubject, type EndpointsChanged } from '@preflight/events';
import type { Caller } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, TEST_NATS_URL, deleteStreams, dropSchemas, eventPublisher, eventually, isolatedName, serviceAuthConfig, serviceCall, type Publisher, type Reply } from '@preflight/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Resolver } from '../src/attempt/target.ts';
import { startDeliveryService, type RunningDeliveryService } from '../src/app.ts';
import { loadDeliveryConfig } from '../src/config.ts';

const silent = createLogger('delivery-test', { level: process.env.TEST_LOG_LEVEL ?? 'silent' });

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

// ---- Receivers: real HTTP servers on loopback ---------------------------------------------

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes, exactly as they arrived. */
  body: Buffer;
  /** Date.now() when the request's body was complete. */
  at: number;
}

export type ReceiverHandler = (req: IncomingMessage, res: ServerResponse, received: Received) => void;

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** Requests whose headers arrived (also those whose handler never answered). */
  started: number;
  handle: ReceiverHandler;
  close(): Promise<void>;
}

/** A receiver answering 200 unless told otherwise; it records every request with its raw body. */
export async function startReceiver(handle: ReceiverHandler = (_req, res) => res.end('ok')): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    port: 0,
    requests: [],
    started: 0,
    handle,
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    receiver.started += 1;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      receiver.requests.push(received);
      receiver.handle(req, res, received);
    });
  });
  receiver.port = await listen(server);
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks?token=abc`;
  receiver.close = () => close(server);
  return receiver;
}

// ---- A stand-in for the webhook service's internal API ------------------------------------

export interface StubEndpoint {
  id: string;
  orgId: string;
  url: string;
  secret: string;
  events: string[];
  isEnabled: boolean;
  consecutiveFailures: number;
  /** During a rotation's grace. */
  previousSecret?: string;
  previousSecretExpiresAt?: string;
  /** The webhook service cannot open its secret (its at-rest key is missing): listed without one. */
  secretUnavailable?: boolean;
}

/**
 * A real HTTP server answering the internal paths of the webhook service
 * (services/webhook/README.md, "Internal API") from memory, with the same rules: enabled
 * endpoints whose filter is empty or holds the event type, oldest first; outcomes count
 * consecutive failures and the one reaching 5 disables the endpoint; unknown id → 404.
 */
export interface WebhookStub {
  url: string;
  endpoints: Map<string, StubEndpoint>;
  outcomes: Array<{ endpointId: string; delivered: boolean }>;
  add(orgId: string, url: string, events?: string[]): StubEndpoint;
  /** The operator's re-enable: enabled, failure count reset (signal it with `signalEndpointChanged`). */
  enable(id: string): void;
  /** While true, every call answers 503. */
  down: boolean;
  /** This many of the next batched outcome calls answer 503. */
  failOutcomeCalls: number;
  /** Calls of the endpoint list, and of the outcome paths (single and batched). */
  calls: { list: number; outcome: number; outcomes: number; lookup: number };
  /** The organisation of every endpoint-list call, in order. */
  listed: string[];
  close(): Promise<void>;
}

export const newSecret = (): string => randomBytes(32).toString('base64');

const signingView = (e: StubEndpoint) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  ...(e.secretUnavailable
    ? { secret: null, previousSecret: null, previousSecretExpiresAt: null, secretUnavailable: true }
    : { secret: e.secret, previousSecret: e.previousSecret ?? null, previousSecretExpiresAt: e.previousSecretExpiresAt ?? null }),
});

/** What the webhook service signals after a change (create, delete, rotate; `reset` for a re-enable). */
export async function signalEndpointChanged(prefix: string, change: EndpointsChanged): Promise<void> {
  const nc = await connectNats({ url: TEST_NATS_URL, name: 'test-signal', logger: createLogger('test', { level: 'silent' }) });
  try {
    nc.publish(endpointsChangedSubject(prefix), encodeEndpointsChanged(change));
    await nc.flush();
  } finally {
    await nc.close();
  }
}

export async function startWebhookStub(): Promise<WebhookStub> {
  const stub: WebhookStub = {
    url: '',
    endpoints: new Map(),
    outcomes: [],
    down: false,
    failOutcomeCalls: 0,
    calls: { list: 0, outcome: 0, outcomes: 0, lookup: 0 },
    listed: [],
    add(orgId, url, events = []) {
      const e: StubEndpoint = { id: randomUUID(), orgId, url, secret: newSecret(), events, isEnabled: true, consecutiveFailures: 0 };
      stub.endpoints.set(e.id, e);
      return e;
    },
    enable(id) {
      Object.assign(stub.endpoints.get(id)!, { isEnabled: true, consecutiveFailures: 0 });
    },
    close: async () => undefined,
  };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (stub.down) return json(res, 503, { status: 503 });
      const url = new URL(req.url ?? '/', 'http://stub');
      const list = /^\/internal\/v1\/orgs\/([^/]+)\/endpoints$/.exec(url.pathname);
      if (req.method === 'GET' && list) {
        stub.calls.list += 1;
        stub.listed.push(list[1]!);
        const eventType = url.searchParams.get('eventType') ?? '';
        const found = [...stub.endpoints.values()]
          .filter((e) => e.orgId === list[1] && e.isEnabled && (e.events.length === 0 || e.events.includes(eventType)))
          .map(signingView);
        return json(res, 200, found);
      }
      const lookup = /^\/internal\/v1\/webhooks\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && lookup) {
        stub.calls.lookup += 1;
        const e = stub.endpoints.get(lookup[1]!);
        return e ? json(res, 200, { id: e.id, orgId: e.orgId, isEnabled: e.isEnabled }) : json(res, 404, { status: 404 });
      }
      const detail = /^\/internal\/v1\/webhooks\/([^/]+)\/endpoint$/.exec(url.pathname);
      if (req.method === 'GET' && detail) {
        const e = stub.endpoints.get(detail[1]!);
        return e ? json(res, 200, { ...signingView(e), orgId: e.orgId, isEnabled: e.isEnabled }) : json(res, 404, { status: 404 });
      }
      const apply = (endpointId: string, delivered: boolean) => {
        const e = stub.endpoints.get(endpointId);
        stub.outcomes.push({ endpointId, delivered });
        if (!e) return null;
        if (delivered) e.consecutiveFailures = 0;
        else {
          e.consecutiveFailures += 1;
          if (e.consecutiveFailures === 5) e.isEnabled = false;
        }
        return { isEnabled: e.isEnabled, consecutiveFailures: e.consecutiveFailures };
      };
      const outcome = /^\/internal\/v1\/webhooks\/([^/]+)\/delivery-outcome$/.exec(url.pathname);
      if (req.method === 'POST' && outcome) {
        stub.calls.outcome += 1;
        const { delivered } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { delivered: boolean };
        const state = apply(outcome[1]!, delivered);
        return state ? json(res, 200, state) : json(res, 404, { status: 404 });
      }
      if (req.method === 'POST' && url.pathname === '/internal/v1/delivery-outcomes') {
        stub.calls.outcomes += 1;
        if (stub.failOutcomeCalls > 0) {
          stub.failOutcomeCalls -= 1;
          return json(res, 503, { status: 503 });
        }
        const { outcomes } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { outcomes: Array<{ webhookId: string; delivered: boolean }> };
        // The real service's bound: nothing applied beyond it.
        if (outcomes.length > MAX_DELIVERY_OUTCOMES_PER_CALL) return json(res, 422, { status: 422 });
        return json(res, 200, { results: outcomes.map((o) => ({ webhookId: o.webhookId, state: apply(o.webhookId, o.delivered) })) });
      }
      json(res, 404, { status: 404 });
    });
  });
  const port = await listen(server);
  stub.url = `http://127.0.0.1:${port}`;
  stub.close = () => close(server);
  return stub;
}

export { eventPublisher, type Publisher };

// ---- The delivery service ------------------------------------------------------------------

export interface Isolation {
  schema: string;
  stream: string;
  prefix: string;
}

export const isolation = (): Isolation => ({ schema: isolatedName('delivery'), stream: isolatedName('delivery_events'), prefix: isolatedName('delivery_subj') });

export async function cleanup(iso: Isolation): Promise<void> {
  await deleteStreams([iso.stream]);
  await dropSchemas([iso.schema]);
}

export type { Reply } from '@preflight/testing';

export interface DeliveryHarness {
  base: string;
  service: RunningDeliveryService;
  call(method: string, path: string, opts?: { as?: Caller; body?: unknown }): Promise<Reply>;
  /** The value of one sample of /metrics (0 when absent). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  stop(): Promise<void>;
}

/** Fast test settings: schedule 100 ms, 300 ms; 1 s per attempt; private targets allowed. */
export const FAST: Record<string, string> = {
  DELIVERY_RETRY_SCHEDULE_MS: '100,300',
  DELIVERY_ATTEMPT_TIMEOUT_MS: '1000',
  DELIVERY_POLL_INTERVAL_MS: '200',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  DELIVERY_BREAKER_RESET_MS: '300',
};

export async function startDelivery(iso: Isolation, webhookUrl: string, env: Record<string, string> = {}, resolveHost?: Resolver): Promise<DeliveryHarness> {
  const config = loadDeliveryConfig(
    {
      NATS_URL: TEST_NATS_URL,
      EVENTS_STREAM: iso.stream,
      EVENTS_SUBJECT_PREFIX: iso.prefix,
      EVENTS_STREAM_MAX_AGE_HOURS: '1',
      DELIVERY_PORT: '0',
      DATABASE_URL: TEST_DATABASE_URL,
      DB_SCHEMA: iso.schema,
      DB_POOL_MAX: '6',
      WEBHOOK_URL: webhookUrl,
      ...FAST,
      ...env,
    },
    false,
  );
  const service = await startDeliveryService({ config: { ...config, ...serviceAuthConfig('delivery') }, logger: silent, host: '127.0.0.1', exitOnShutdown: false, ...(resolveHost ? { resolveHost } : {}) });
  const base = `http://127.0.0.1:${service.port}`;
  return {
    base,
    service,
    // As the gateway for a caller; without one, as the webhook service (the internal route's one peer).
    call: serviceCall('delivery', () => base, 'webhook'),
    async metric(name, labels = {}) {
      const text = await (await fetch(`${base}/metrics`)).text();
      const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
      const line = text.split('\n').find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((w) => l.includes(w)));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    },
    stop: () => service.shutdown('test finished'),
  };
}

/** The endpoint's delivery log (admin API), newest first. */
export const deliveryLog = async (h: DeliveryHarness, endpointId: string, query = '') =>
  (await h.call('GET', `/admin/v1/webhooks/${endpointId}/deliveries${query}`, { as: asAdmin })).body as any[];

/**
 * The log once it holds `n` attempts. An outcome is reported to the webhook service just
 * before its attempt is recorded, so a test that waited for the outcome waits for the log too.
 */
export const deliveryLogOf = (h: DeliveryHarness, endpointId: string, n: number) =>
  eventually(async () => {
    const entries = await deliveryLog(h, endpointId, '?limit=200');
    expect(entries).toHaveLength(n);
    return entries;
  });

/** A connection of the test's own to the services' database (for locks held across steps). */
export async function databaseClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  return client;
}

/** Rows of a query on the service's tables, over a connection of its own (the schema named in the SQL). */
export async function queryRows<R extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<R[]> {
  const client = await databaseClient();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

export const asAdmin: Caller = { kind: 'admin' };
export const asKey = (orgId: string): Caller => ({ kind: 'api-key', orgId, keyId: randomUUID(), keyName: 'ci' });

/**
 * A test file's system: the webhook stand-in, one delivery service on its own schema and
 * stream, a publisher, and receivers, started before the file's tests and closed after them.
 */
export function deliverySuite(env: Record<string, string> = {}, resolveHost?: Resolver) {
  const receivers: Receiver[] = [];
  const suite = {
    iso: isolation(),
    stub: undefined as unknown as WebhookStub,
    h: undefined as unknown as DeliveryHarness,
    pub: undefined as unknown as Publisher,
    async receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
      const r = await startReceiver(...args);
      receivers.push(r);
      return r;
    },
  };
  beforeAll(async () => {
    suite.stub = await startWebhookStub();
    suite.h = await startDelivery(suite.iso, suite.stub.url, env, resolveHost);
    suite.pub = await eventPublisher(suite.iso.prefix);
  });
  afterAll(async () => {
    await suite.pub?.close();
    await suite.h?.stop();
    await suite.stub?.close();
    for (const r of receivers) await r.close();
    await cleanup(suite.iso);
  });
  return suite;
}
