import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express from 'express';
import { expect } from 'vitest';
import type { Caller } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, TEST_NATS_URL, deleteStreams, dropSchemas, isolatedName, serviceAuthConfig, serviceCall, type Reply } from '@preflight/testing';
import { startIssueService, type RelayHandle, type RunningIssueService } from '../src/app.ts';
import { loadIssueConfig } from '../src/config.ts';

/** What the campaign service's internal endpoint answers. */
export interface StubCampaign {
  id: string;
  orgId: string;
  name: string | null;
  status: 'Draft' | 'Active' | 'Paused' | 'Closed' | null;
  siteId: string;
  siteName: string | null;
  createdAt: string;
}

/**
 * A stand-in for the campaign service (written in parallel): a real HTTP server on loopback
 * answering GET /internal/v1/campaigns/:id from an in-memory map, recording what it was asked.
 */
export interface CampaignStub {
  url: string;
  requests: Array<{ id: string; traceparent: string | undefined }>;
  add(orgId: string, overrides?: Partial<StubCampaign>): StubCampaign;
  close(): Promise<void>;
}

export async function startCampaignStub(): Promise<CampaignStub> {
  const campaigns = new Map<string, StubCampaign>();
  const requests: CampaignStub['requests'] = [];
  const app = express();
  app.get('/internal/v1/campaigns/:id', (req, res) => {
    requests.push({ id: req.params.id, traceparent: req.header('traceparent') });
    const campaign = campaigns.get(req.params.id);
    if (campaign) res.json(campaign);
    else res.status(404).type('application/problem+json').send(JSON.stringify({ status: 404, title: 'Not found.' }));
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    add(orgId, overrides = {}) {
      const campaign: StubCampaign = {
        id: randomUUID(),
        orgId,
        name: 'Spring launch',
        status: 'Active',
        siteId: randomUUID(),
        siteName: 'shop.example.com',
        createdAt: new Date().toISOString(),
        ...overrides,
      };
      campaigns.set(campaign.id, campaign);
      return campaign;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const asKey = (orgId: string, keyName = 'CI pipeline'): Caller => ({ kind: 'api-key', orgId, keyId: randomUUID(), keyName });
export const asAdmin: Caller = { kind: 'admin' };

export type { Reply } from '@preflight/testing';

export interface Harness {
  base: string;
  stub: CampaignStub;
  /** This harness's own schema, stream and subject prefix. */
  schema: string;
  stream: string;
  prefix: string;
  /** The service's outbox relay (stop it to leave committed events unpublished). */
  relay: RelayHandle;
  /** The value of one sample of the service's /metrics, 0 when absent. */
  metric(name: string, labels: Record<string, string>): Promise<number>;
  call(method: string, path: string, opts?: { as?: Caller; body?: unknown; headers?: Record<string, string> }): Promise<Reply>;
  close(): Promise<void>;
}

/**
 * The issue service on a loopback port, in a schema, JetStream stream and subject prefix of its
 * own, in front of a campaign stub.
 * `campaignUrl` replaces the stub's address (to point at nothing, for instance).
 */
export async function startHarness(opts: { campaignUrl?: string; poolMax?: number } = {}): Promise<Harness> {
  const stub = await startCampaignStub();
  const schema = isolatedName('issue');
  const stream = isolatedName('issue_events');
  const prefix = isolatedName('issue_subj');
  const config = loadIssueConfig(
    {
      NATS_URL: TEST_NATS_URL,
      EVENTS_STREAM: stream,
      EVENTS_SUBJECT_PREFIX: prefix,
      EVENTS_STREAM_MAX_AGE_HOURS: '1',
      ISSUE_PORT: '0',
      DATABASE_URL: TEST_DATABASE_URL,
      DB_SCHEMA: schema,
      DB_POOL_MAX: String(opts.poolMax ?? 5),
      CAMPAIGN_URL: opts.campaignUrl ?? stub.url,
    },
    false,
  );
  let service: RunningIssueService;
  try {
    service = await startIssueService({ config: { ...config, ...serviceAuthConfig('issue') }, logger: createLogger('issue-test', { level: 'silent' }), host: '127.0.0.1', exitOnShutdown: false });
  } catch (err) {
    await stub.close();
    await deleteStreams([stream]);
    await dropSchemas([schema]);
    throw err;
  }
  const base = `http://127.0.0.1:${service.port}`;
  return {
    base,
    stub,
    schema,
    stream,
    prefix,
    relay: service.relay,
    async metric(name, labels) {
      const text = await (await fetch(`${base}/metrics`)).text();
      const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    },
    // As the gateway for a caller; without one, as the integration service (the internal routes' one peer).
    call: serviceCall('issue', () => base, 'integration'),
    async close() {
      await service.shutdown('test finished');
      await stub.close();
      await deleteStreams([stream]);
      await dropSchemas([schema]);
    },
  };
}

/** Problem bodies carry the same fields whatever went wrong. */
export function expectProblem(reply: Reply, status: number): any {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  for (const field of ['type', 'title', 'status', 'detail', 'instance', 'traceId']) expect(reply.body).toHaveProperty(field);
  expect(reply.body.status).toBe(status);
  return reply.body;
}
