import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, callOf } from '@preflight/http';
import { generateDeploymentKeys, onlyFrom, parsePublicKeys, parseSigningKey, serviceAuthGuard, serviceTokens, tokenVerifier } from '../src/index.ts';

const deployment = generateDeploymentKeys(['gateway', 'delivery', 'issue'], 'k1');
const as = (service: string) => serviceTokens(parseSigningKey(service, deployment.keys[service]!));
let base = '';
let close: () => void;

beforeAll(async () => {
  const app = express();
  app.use(serviceAuthGuard({ self: 'webhook', peers: ['delivery', 'issue'], verifier: tokenVerifier('webhook', parsePublicKeys(deployment.publicKeys)) }));
  const secrets = (a: Express) => a.get('/secrets', (req, res) => void res.json(callOf(req)));
  onlyFrom(['delivery'], secrets)(app, undefined);
  app.get('/open', (req, res) => void res.json(callOf(req)));
  // express's own setting getter still answers through the guarded wrapper
  onlyFrom(['delivery'], (a: Express) => expect(a.get('query parser')).toBeDefined())(app, undefined);
  app.use(((err, _req, res, _next) => void res.status(err instanceof AppError ? err.status : 500).json({ detail: (err as Error).message })) satisfies ErrorRequestHandler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close?.());

const get = async (path: string, from?: string) => {
  const res = await fetch(`${base}${path}`, { headers: from ? { authorization: await as(from).authorization('webhook') } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('the service-token check', () => {
  it('binds the verified call, refuses no token (401) and a service that is not a peer (403)', async () => {
    expect(await get('/open', 'issue')).toEqual({ status: 200, body: { service: 'issue' } });
    expect((await get('/open')).status).toBe(401);
    const other = generateDeploymentKeys(['campaign'], 'k1');
    const ring = parsePublicKeys(`${deployment.publicKeys},${other.publicKeys}`);
    // A valid token of a service the port does not name: 403 from a guard that trusts its key.
    const strict = serviceAuthGuard({ self: 'webhook', peers: [], verifier: tokenVerifier('webhook', ring) });
    const token = (await serviceTokens(parseSigningKey('campaign', other.keys.campaign!)).authorization('webhook'));
    const err = await new Promise<unknown>((resolve) => strict({ headers: { authorization: token } } as never, {} as never, resolve));
    expect(err).toMatchObject({ status: 403, detail: 'The campaign service may not call the webhook service.' });
  });

  it('onlyFrom lets only the named services reach a route, the gateway included', async () => {
    expect((await get('/secrets', 'delivery')).status).toBe(200);
    expect(await get('/secrets', 'issue')).toEqual({ status: 403, body: { detail: 'This route answers only the delivery service, not issue.' } });
    expect((await get('/secrets', 'gateway')).status).toBe(403);
    expect(() => onlyFrom(['delivery'], (a: Express) => a.use((_q, _s, n) => n()))(express(), undefined)).toThrow(/routes only/);
  });
});
