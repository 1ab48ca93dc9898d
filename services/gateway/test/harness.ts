import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { parsePublicKeys, tokenVerifier, type VerifiedCall } from '@preflight/service-auth';
import { TEST_DATABASE_URL, TEST_REDIS_URL, dropSchemas, isolatedName, testServiceKeys, testSigningKey } from '@preflight/testing';
import { startGateway, type GatewayOptions, type RunningGateway } from '../src/app.ts';
import { loadGatewayConfig } from '../src/config.ts';

export interface Isolation {
  schema: string;
  redisPrefix: string;
  adminToken: string;
}

export function isolation(): Isolation {
  return {
    schema: isolatedName('identity'),
    redisPrefix: `${isolatedName('gw')}:`,
    adminToken: `adm_test_${randomBytes(16).toString('hex')}`,
  };
}

/** A gateway in this process on a loopback port, in the test's own schema and key prefix. */
export async function startTestGateway(iso: Isolation, env: Record<string, string> = {}, opts: GatewayOptions = {}): Promise<RunningGateway> {
  // The kit's own setting (libs/service-kit kitConfigShape), read beside the gateway's config.
  const { READINESS_GRACE_MS, ...rest } = env;
  const gatewayConfig = loadGatewayConfig(
    {
      DATABASE_URL: TEST_DATABASE_URL,
      DB_SCHEMA: iso.schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: iso.redisPrefix,
      ADMIN_TOKEN: iso.adminToken,
      LOG_LEVEL: 'silent',
      // The ring console tokens are checked with (member-admin.test.ts adds a console key of its own).
      SERVICE_AUTH_PUBLIC_KEYS: testServiceKeys.publicKeys,
      ...rest,
    },
    false,
  );
  const config = READINESS_GRACE_MS === undefined ? gatewayConfig : { ...gatewayConfig, READINESS_GRACE_MS: Number(READINESS_GRACE_MS) };
  // Its key for the tokens it forwards with (the kit reads SERVICE_AUTH_KEY beside the gateway's config).
  const signed = { ...config, SERVICE_AUTH_KEY: testSigningKey('gateway') };
  return startGateway(signed, { exitOnShutdown: false, port: 0, host: '127.0.0.1', ...opts });
}

export async function cleanUp(iso: Isolation): Promise<void> {
  await dropSchemas([iso.schema]);
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${iso.redisPrefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A stand-in for a service: records what reached it, answers JSON with a settable status. */
export interface UpstreamStub {
  url: string;
  requests: RecordedRequest[];
  status: number;
  /** While true, answers send their headers and part of the body, then the connection is cut. */
  cut: boolean;
  /** While true, requests are recorded but not answered until `hang` goes false again (see `release`). */
  hang: boolean;
  /** Answers every request held by `hang`, and stops holding new ones. */
  release(): void;
  /** Requests held by `hang` right now. */
  held(): number;
  close(): Promise<void>;
  /** Stops listening and cuts every connection: the service is down (connections refused). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

export async function startUpstreamStub(): Promise<UpstreamStub> {
  const heldAnswers: Array<() => void> = [];
  const stub: UpstreamStub = {
    url: '',
    requests: [],
    status: 200,
    cut: false,
    hang: false,
    release: () => {
      stub.hang = false;
      for (const answer of heldAnswers.splice(0)) answer();
    },
    held: () => heldAnswers.length,
    close: async () => undefined,
    stop: async () => undefined,
    start: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      stub.requests.push(recorded);
      if (stub.cut) {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': '1000' });
        res.write('{"partial":');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      // Numbered, so a test can tell a replayed answer from a second execution.
      const location = `/things/${stub.requests.length}`;
      const answer = () => {
        res.writeHead(stub.status, { 'content-type': 'application/json; charset=utf-8', 'x-upstream-secret': 'internal', location });
        res.end(JSON.stringify({ echoed: { method: recorded.method, url: recorded.url, body: recorded.body } }));
      };
      if (stub.hang) heldAnswers.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  stub.url = `http://127.0.0.1:${port}`;
  stub.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  stub.stop = async () => {
    const closed = stub.close();
    server.closeAllConnections();
    await closed;
  };
  stub.start = () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return stub;
}

export interface Call {
  status: number;
  headers: Headers;
  body: any;
}

/** One HTTP call; JSON bodies of any flavour parsed. */
export async function call(base: string, method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}): Promise<Call> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, headers: res.headers, body: /json/.test(type) && text ? JSON.parse(text) : text };
}

export function adminClient(base: string, token: string) {
  const auth = { authorization: `Bearer ${token}` };
  return {
    call: (method: string, path: string, body?: unknown) => call(base, method, path, { headers: auth, body }),
    async createOrg(name = 'Acme') {
      const res = await call(base, 'POST', '/admin/v1/organizations', { headers: auth, body: { name } });
      expect(res.status).toBe(201);
      return res.body as { id: string; name: string; createdAt: string };
    },
    async createKey(orgId: string, scopes: string[], name = 'ci') {
      const res = await call(base, 'POST', `/admin/v1/organizations/${orgId}/api-keys`, { headers: auth, body: { name, scopes } });
      expect(res.status).toBe(201);
      return res.body as { id: string; name: string; scopes: string[]; key: string; createdAt: string };
    },
    async revokeKey(orgId: string, keyId: string) {
      const res = await call(base, 'DELETE', `/admin/v1/organizations/${orgId}/api-keys/${keyId}`, { headers: auth });
      expect(res.status).toBe(204);
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Asserts an RFC 7807 body with every field the spec lists, and returns it. */
export function expectProblem(res: Call, status: number, title?: string): Record<string, any> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  for (const field of ['type', 'title', 'status', 'detail', 'instance', 'traceId']) expect(res.body).toHaveProperty(field);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.type).toBe('string');
  expect(typeof res.body.detail).toBe('string');
  expect(res.body.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(JSON.stringify(res.body)).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
  if (title !== undefined) expect(res.body.title).toBe(title);
  return res.body;
}

/** The value of one sample in Prometheus text exposition, e.g. `gateway_rate_limiter_degraded`. */
export async function metricValue(base: string, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

/** What the service `to` makes of the Authorization a stand-in upstream received: the gateway's token, checked as the service checks it. */
export async function forwardedCall(authorization: string | string[] | undefined, to: string): Promise<VerifiedCall> {
  expect(authorization).toMatch(/^Bearer /);
  return tokenVerifier(to, parsePublicKeys(testServiceKeys.publicKeys)).verify(String(authorization).slice('Bearer '.length));
}
