import { connect, createServer } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '@preflight/log';
import { AppError, createApp, createRegistry, MAX_JSON_DEPTH, parseBody, sendJson, serve, SERVER_TIMEOUTS, type RunningServer } from '../src/index.ts';

// Issue 22, findings 3, 5 and 9, for every service: what the shared app and server do with
// hostile bodies, slow clients and a lost store (docs/reliability.md).
let server: RunningServer;
let base: string;

const Issue = z.strictObject({ title: z.string().min(1), description: z.string().optional(), tags: z.array(z.string()).optional() });

beforeAll(async () => {
  const logger = createLogger('http-test', { level: 'silent' });
  const { app } = createApp({ service: 'http-test', logger, registry: createRegistry('http-test') }, (a) => {
    a.post('/issues', (req, res) => sendJson(req, res, 201, parseBody(Issue, req.body)));
    // What the webhook service did with `events` before its schema ran: String() of each entry.
    a.post('/stringify', (req, res) => sendJson(req, res, 200, { text: String((req.body as { events: unknown }).events) }));
    a.get('/store-down', async () => {
      // A real refused connection, as pg reports one while Postgres is down.
      const socket = connect(await closedPort(), '127.0.0.1');
      await once(socket, 'connect');
    });
    a.get('/busy', () => {
      throw new AppError('upstream_unavailable', 'Busy.');
    });
  });
  server = await serve({ app, port: 0, host: '127.0.0.1', logger, exitOnShutdown: false });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.shutdown());

/** A loopback port nothing listens on any more. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const post = (path: string, body: string) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

async function problem(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return (await res.json()) as { type: string; detail: string; errors?: Record<string, string[]> };
}

describe('hostile JSON bodies are 422s naming the field, never 500s', () => {
  it('reports top-level properties named after Object.prototype members as unknown', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const body = await problem(await post('/issues', `{"title":"a",${JSON.stringify(name)}:1}`), 422);
      expect(body.errors?.[name]).toEqual([`'${name}' is not a recognised property.`]);
    }
  });

  it('refuses a NUL character in any string, and in a property name, naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['{"title":"a\\u0000b"}', 'title'],
      ['{"title":"a","description":"\\u0000"}', 'description'],
      ['{"title":"a","tags":["ok","x\\u0000"]}', 'tags.1'],
      ['{"title":"a","we\\u0000ird":1}', 'we\\u0000ird'],
      ['"\\u0000"', '$'],
    ];
    for (const [json, field] of cases) {
      const body = await problem(await post('/issues', json), 422);
      expect(body.errors?.[field], json).toEqual(['Must not contain the NUL character (U+0000).']);
    }
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels under the top-level field, and accepts ${MAX_JSON_DEPTH}`, async () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const deep = await problem(await post('/stringify', `{"events":${nested(10_000)}}`), 422);
    expect(deep.errors).toEqual({ events: [`Nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects.`] });
    expect((await post('/stringify', `{"events":${nested(MAX_JSON_DEPTH + 1)}}`)).status).toBe(422); // with the body, 66 levels
    expect((await post('/stringify', `{"events":${nested(MAX_JSON_DEPTH - 1)}}`)).status).toBe(200); // with the body, 64
  });
});

describe('every 503 says when to retry, and a lost store is a 503', () => {
  it('answers a refused store connection with 503 dependency-unavailable and Retry-After', async () => {
    const res = await fetch(`${base}/store-down`);
    const body = await problem(res, 503);
    expect(body.type).toBe('https://preflight.dev/problems/dependency-unavailable');
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('adds Retry-After to a 503 raised without one', async () => {
    const res = await fetch(`${base}/busy`);
    await problem(res, 503);
    expect(res.headers.get('retry-after')).toBe('1');
  });
});

describe('headers and slow clients', () => {
  it('sends X-Content-Type-Options: nosniff on answers, problems, health and metrics', async () => {
    const answers = [await post('/issues', '{"title":"a"}'), await fetch(`${base}/nowhere`), await fetch(`${base}/healthz`), await fetch(`${base}/metrics`)];
    for (const res of answers) expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it(`closes a connection whose headers trickle in for longer than ${SERVER_TIMEOUTS.headersMs / 1000} s`, { timeout: 20_000 }, async () => {
    const socket = connect(server.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.on('error', () => undefined);
    const started = Date.now();
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => socket.write('X-Slow: 1\r\n'), 500);
    try {
      await closed;
    } finally {
      clearInterval(trickle);
    }
    const heldMs = Date.now() - started;
    expect(heldMs).toBeGreaterThanOrEqual(SERVER_TIMEOUTS.headersMs - 100);
    expect(heldMs).toBeLessThan(SERVER_TIMEOUTS.headersMs + 2 * SERVER_TIMEOUTS.checkIntervalMs + 500);
  });
});
