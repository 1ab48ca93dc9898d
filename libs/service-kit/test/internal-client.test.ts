import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testTokens } from '@preflight/testing';
import { internalClient } from '../src/internal-client.ts';

/** A stand-in webhook service: answers each request with what `answer` says for its method and URL, and keeps what it was sent. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
let server: Server;
let base: string;
const seen: Seen[] = [];
/** `slowlyMs`: the headers after that long, the body as long again after them. */
let answer: (req: Seen) => { status: number; body?: string; slowlyMs?: number } = () => ({ status: 500 });

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(s);
      const a = answer(s);
      const later = (f: () => void) => (a.slowlyMs ? setTimeout(f, a.slowlyMs) : f());
      later(() => {
        res.writeHead(a.status, a.body === undefined ? {} : { 'content-type': 'application/json' });
        res.flushHeaders();
        later(() => res.end(a.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

class Unavailable extends Error {}
const clientOf = (baseUrl = base, deadlineMs?: number) =>
  internalClient('webhook', { baseUrl, tokens: testTokens('delivery'), timeoutMs: 1_000, ...(deadlineMs ? { deadlineMs } : {}), unavailable: Unavailable });

describe('internalClient', () => {
  it('calls the manifest entry\'s method and path, signed for the owner, and answers the body its schema parses', async () => {
    const id = randomUUID();
    const orgId = randomUUID();
    answer = () => ({ status: 200, body: JSON.stringify({ id, orgId, isEnabled: true, extra: 'dropped' }) });
    const client = clientOf();
    try {
      expect(await client.found('internalGetWebhook', { params: { id } })).toEqual({ id, orgId, isEnabled: true });
    } finally {
      await client.close();
    }
    const last = seen.at(-1)!;
    expect([last.method, last.url]).toEqual(['GET', `/internal/v1/webhooks/${id}`]);
    expect(last.headers.authorization).toMatch(/^Bearer /);
  });

  it('sends the query and a JSON body, and hands a refusal back with its problem', async () => {
    answer = () => ({ status: 409, body: JSON.stringify({ status: 409, detail: 'no' }) });
    const client = clientOf();
    try {
      const a = await client.call('internalDeliveryOutcome', { params: { id: 'a b' }, query: { unsignable: 'include' }, body: { delivered: false } });
      expect(a).toEqual({ ok: false, status: 409, problem: { status: 409, detail: 'no' } });
    } finally {
      await client.close();
    }
    const last = seen.at(-1)!;
    expect([last.method, last.url, last.body, last.headers['content-type']]).toEqual(['POST', '/internal/v1/webhooks/a%20b/delivery-outcome?unsignable=include', '{"delivered":false}', 'application/json']);
  });

  it('answers undefined for a 404 and throws the caller\'s error for any other refusal, a garbled 200 or no answer', async () => {
    const client = clientOf();
    try {
      answer = () => ({ status: 404, body: JSON.stringify({ status: 404 }) });
      expect(await client.found('internalGetWebhook', { params: { id: randomUUID() } })).toBeUndefined();
      answer = () => ({ status: 503 });
      await expect(client.found('internalGetWebhook', { params: { id: randomUUID() } })).rejects.toThrow(/answered 503 to internalGetWebhook/);
      answer = () => ({ status: 200, body: JSON.stringify({ id: 'not a uuid' }) });
      await expect(client.found('internalGetWebhook', { params: { id: randomUUID() } })).rejects.toBeInstanceOf(Unavailable);
      answer = () => ({ status: 200, body: '{"id":' });
      await expect(client.call('internalGetWebhook', { params: { id: randomUUID() } })).rejects.toThrow(/unreadable answer from the webhook service/);
    } finally {
      await client.close();
    }
    const down = clientOf('http://127.0.0.1:9/');
    try {
      await expect(down.found('internalGetWebhook', { params: { id: randomUUID() } })).rejects.toThrow(/no answer from the webhook service/);
    } finally {
      await down.close();
    }
  });

  it('gives up on a call that is slower in all than its deadline, though each of its parts is within the timeout', async () => {
    const id = randomUUID();
    answer = () => ({ status: 200, body: JSON.stringify({ id, orgId: randomUUID(), isEnabled: true }), slowlyMs: 600 });
    const patient = clientOf();
    const hurried = clientOf(base, 900);
    try {
      expect(await patient.found('internalGetWebhook', { params: { id } })).toMatchObject({ id });
      await expect(hurried.found('internalGetWebhook', { params: { id } })).rejects.toBeInstanceOf(Unavailable);
    } finally {
      await patient.close();
      await hurried.close();
    }
  });
});
