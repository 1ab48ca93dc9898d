import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { call, freshTenant } from '../support/client.ts';

// The running system with its default attempt timeout (10 s, not the 1 s the service tests
// configure): a receiver that answers 200 at once but trickles its body forever must still
// fail the attempt at 10 s.
const sys = inject('system');
const trickling = new Set<NodeJS.Timeout>();
const server = createServer((req, res: ServerResponse) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.write('.');
  trickling.add(setInterval(() => res.write('.'), 250));
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
});
afterAll(async () => {
  for (const t of trickling) clearInterval(t);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it('fails an attempt whose response body is still trickling in after 10 s', async () => {
  const t = await freshTenant(sys, { all: ['read', 'write', 'webhooks'] });
  const hook = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: t.keys.all!.key, body: { url, events: ['CampaignLaunched'], name: 'Slow' } });
  expect(hook.status).toBe(201);
  await t.admin.setCampaignStatus(t.campaign.id, 'Active');

  const first = await eventually(
    async () => {
      const log = await call(sys, 'GET', `/admin/v1/webhooks/${hook.body.id}/deliveries`, { token: sys.adminToken });
      expect(log.status).toBe(200);
      expect(log.body.length).toBeGreaterThanOrEqual(1);
      return log.body[log.body.length - 1];
    },
    { timeoutMs: 25_000 },
  );
  expect(first).toMatchObject({ attempt: 1, eventType: 'CampaignLaunched', statusCode: 200, outcome: 'failed', error: 'timed out after 10000 ms' });
  expect(first.durationMs).toBeGreaterThanOrEqual(9_900);
  expect(first.durationMs).toBeLessThan(12_000);
}, 40_000);
