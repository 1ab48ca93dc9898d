import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The HTTP server under every provider fake: records what arrives, lets a test change how the
 * provider behaves (answer normally, refuse with a status, rate-limit, hang, delay), and hands
 * everything else to the fake's own routes. Fakes listen on 127.0.0.1 with a port of their own.
 */

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  /** The raw body as text. */
  body: string;
  at: number;
}

export type Behaviour =
  | { mode: 'normal' }
  /** Every request gets `status` (with `Retry-After` when given); `times` limits it to the next n requests. */
  | { mode: 'status'; status: number; retryAfterSeconds?: number; body?: string; times?: number }
  /** Requests get no answer until the behaviour changes or the server closes. */
  | { mode: 'hang' }
  /** Requests are answered normally after `ms`. */
  | { mode: 'delay'; ms: number };

export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
}

/** A fake's own routes: the reply, or undefined for 404. */
export type FakeRoutes = (req: RecordedRequest) => FakeReply | undefined | Promise<FakeReply | undefined>;

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  setBehaviour(behaviour: Behaviour): void;
  /** Resolves with the first recorded request `match` accepts (past or future); rejects after `timeoutMs`. */
  waitForRequest(match: (req: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export async function startFakeServer(routes: FakeRoutes): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const waiters = new Set<{ match: (r: RecordedRequest) => boolean; resolve: (r: RecordedRequest) => void }>();
  const hanging = new Set<ServerResponse>();
  let behaviour: Behaviour = { mode: 'normal' };

  const reply = (res: ServerResponse, r: FakeReply) => {
    const text = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    const contentType = typeof r.body === 'string' || r.body === undefined ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
    res.writeHead(r.status, { 'content-type': contentType, ...r.headers });
    res.end(text);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: RecordedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      requests.push(recorded);
      for (const w of waiters) {
        if (w.match(recorded)) {
          waiters.delete(w);
          w.resolve(recorded);
        }
      }
      void handle(recorded, res);
    });
  });

  async function handle(recorded: RecordedRequest, res: ServerResponse): Promise<void> {
    const current = behaviour;
    if (current.mode === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (current.mode === 'status') {
      if (current.times !== undefined && --current.times <= 0) behaviour = { mode: 'normal' };
      reply(res, { status: current.status, headers: current.retryAfterSeconds !== undefined ? { 'retry-after': String(current.retryAfterSeconds) } : {}, body: current.body ?? '' });
      return;
    }
    if (current.mode === 'delay') await new Promise((r) => setTimeout(r, current.ms));
    try {
      reply(res, (await routes(recorded)) ?? { status: 404, body: { message: 'Not Found' } });
    } catch (err) {
      reply(res, { status: 500, body: { message: (err as Error).message } });
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setBehaviour(next) {
      behaviour = next;
      if (next.mode !== 'hang') for (const res of hanging) res.destroy();
    },
    waitForRequest(match, timeoutMs = 10_000) {
      const seen = requests.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve: (r: RecordedRequest) => (clearTimeout(timer), resolve(r)) };
        const timer = setTimeout(() => (waiters.delete(waiter), reject(new Error(`no matching request within ${timeoutMs} ms`))), timeoutMs);
        waiters.add(waiter);
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
