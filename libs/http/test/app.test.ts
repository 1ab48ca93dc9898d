import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { z } from 'zod';
import { createLogger } from '@preflight/log';
import { AppError, createApp, createRegistry, parseBody, pathId, sendJson, serve, type RunningServer } from '../src/index.ts';

let server: RunningServer;
let base: string;
let appOf: Express;

beforeAll(async () => {
  const logger = createLogger('http-test', { level: 'silent' });
  const { app } = createApp({ service: 'http-test', logger, registry: createRegistry('http-test') }, (a) => {
    a.get('/things/:id', (req, res) => sendJson(req, res, 200, { id: pathId(req.params.id, 'thing') }));
    a.post('/things', (req, res) => sendJson(req, res, 201, parseBody(z.strictObject({ name: z.string().min(1) }), req.body)));
    a.get('/boom', () => {
      throw new Error('select * from secret_table');
    });
    a.get('/conflict', () => {
      throw new AppError('conflict', 'Already closed.', { currentState: 'Closed' });
    });
  });
  appOf = app;
  server = await serve({ app, port: 0, host: '127.0.0.1', logger, exitOnShutdown: false });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.shutdown());

async function problem(res: Response) {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  for (const field of ['type', 'title', 'status', 'detail', 'instance', 'traceId']) expect(body).toHaveProperty(field);
  expect(body.status).toBe(res.status);
  return body;
}

describe('createApp', () => {
  it('answers unknown routes with a 404 problem', async () => {
    const res = await fetch(`${base}/nowhere`);
    expect(res.status).toBe(404);
    expect((await problem(res)).instance).toBe('/nowhere');
  });

  it('turns a malformed path id into a 404 problem', async () => {
    const res = await fetch(`${base}/things/not-a-uuid`);
    expect(res.status).toBe(404);
    expect((await problem(res)).detail).toContain("No thing with id 'not-a-uuid'");
  });

  it('answers malformed JSON with a 400 problem', async () => {
    const res = await fetch(`${base}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' });
    expect(res.status).toBe(400);
    expect((await problem(res)).title).toBe('Malformed JSON.');
  });

  it('refuses bodies in other media types with 415', async () => {
    const res = await fetch(`${base}/things`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<a/>' });
    expect(res.status).toBe(415);
    await problem(res);
  });

  it('accepts text/json and application/*+json bodies', async () => {
    for (const type of ['text/json', 'application/merge-patch+json']) {
      const res = await fetch(`${base}/things`, { method: 'POST', headers: { 'content-type': type }, body: '{"name":"a"}' });
      expect(res.status).toBe(201);
    }
  });

  it('refuses oversized bodies with 413', async () => {
    const res = await fetch(`${base}/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(300 * 1024) }),
    });
    expect(res.status).toBe(413);
    await problem(res);
  });

  it('reports validation failures per field with 422', async () => {
    const res = await fetch(`${base}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"","extra":1}' });
    expect(res.status).toBe(422);
    const body = await problem(res);
    expect(Object.keys(body.errors as object).sort()).toEqual(['extra', 'name']);
  });

  it('hides unexpected exceptions behind a generic 500 problem', async () => {
    const res = await fetch(`${base}/boom`);
    expect(res.status).toBe(500);
    const text = JSON.stringify(await problem(res));
    expect(text).not.toContain('secret_table');
    expect(text).not.toContain('at ');
  });

  it('keeps extra problem members such as the current state of a conflict', async () => {
    const res = await fetch(`${base}/conflict`);
    expect(res.status).toBe(409);
    expect((await problem(res)).currentState).toBe('Closed');
  });

  it('honours an incoming traceparent and reports its trace id', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${base}/nowhere`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect(res.headers.get('x-trace-id')).toBe(traceId);
    expect((await problem(res)).traceId).toBe(traceId);
  });

  it('negotiates text/json and text/plain responses', async () => {
    const id = '8a6e0804-2bd0-4672-b79d-d97027f9071a';
    for (const accept of ['text/json', 'text/plain', 'application/json']) {
      const res = await fetch(`${base}/things/${id}`, { headers: { accept } });
      expect(res.headers.get('content-type')).toBe(`${accept}; charset=utf-8`);
      expect(await res.json()).toEqual({ id });
    }
  });

  it('hands express requests and responses that already have its prototypes', async () => {
    // express re-parents plain ones on every request (Object.setPrototypeOf), which costs V8 new
    // hidden classes in the old generation (libs/http/src/server.ts, createAppServer).
    const seen: boolean[] = [];
    const check = (req: object, res: object) => seen.push(Object.getPrototypeOf(req) === appOf.request && Object.getPrototypeOf(res) === appOf.response);
    server.server.prependListener('request', check);
    try {
      const id = '8a6e0804-2bd0-4672-b79d-d97027f9071a';
      const res = await fetch(`${base}/things/${id}?x=1`, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ id });
    } finally {
      server.server.off('request', check);
    }
    expect(seen).toEqual([true]);
  });

  it('serves health, readiness and metrics', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('http_server_requests_total');
  });
});
