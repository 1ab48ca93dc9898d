import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Kysely } from '@preflight/db';
import type { Caller } from '@preflight/http';
import { deleteStreams, dropSchemas, isolatedName, serviceAuthConfig, serviceAuthHeaders, TEST_DATABASE_URL, TEST_NATS_URL } from '@preflight/testing';
import { startCampaignService, type RunningCampaignService } from '../src/app.ts';
import { loadCampaignConfig } from '../src/config.ts';
import type { CampaignDatabase } from '../src/storage/schema.ts';

/**
 * The campaign service as a test sees it: the real app on a loopback port over a schema, an
 * events stream and a subject prefix of its own, and requests carrying the identity headers
 * the gateway would add.
 */
export interface TestService {
  db: Kysely<CampaignDatabase>;
  service: RunningCampaignService;
  /** The isolated stream and subject prefix the service uses. */
  stream: string;
  prefix: string;
  get(path: string, as?: Caller): Promise<Response>;
  post(path: string, body: unknown, as?: Caller): Promise<Response>;
  put(path: string, body: unknown, as?: Caller): Promise<Response>;
  delete(path: string, as?: Caller): Promise<Response>;
  stop(): Promise<void>;
}

export async function startTestService(label: string): Promise<TestService> {
  const schema = isolatedName(label);
  const stream = isolatedName(label).toUpperCase();
  const prefix = isolatedName(label);
  const config = loadCampaignConfig({
    source: {
      CAMPAIGN_PORT: '0',
      DATABASE_URL: TEST_DATABASE_URL,
      DB_SCHEMA: schema,
      DB_POOL_MAX: '10',
      LOG_LEVEL: 'silent',
      NATS_URL: TEST_NATS_URL,
      EVENTS_STREAM: stream,
      EVENTS_SUBJECT_PREFIX: prefix,
    },
    exitOnError: false,
  });
  const service = await startCampaignService({ ...config, ...serviceAuthConfig('campaign') }, { host: '127.0.0.1', exitOnShutdown: false });
  // As the gateway for a caller; without one, as the issue service (the internal route's one peer).
  const headers = (as?: Caller) => serviceAuthHeaders('campaign', as ? { caller: as } : { from: 'issue' });
  const send = (method: string) => async (path: string, body: unknown, as?: Caller) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(await headers(as)) },
      body: JSON.stringify(body),
    });
  return {
    db: service.database.db,
    service,
    stream,
    prefix,
    get: async (path, as) => fetch(`${service.url}${path}`, { headers: await headers(as) }),
    post: send('POST'),
    put: send('PUT'),
    delete: async (path, as) => fetch(`${service.url}${path}`, { method: 'DELETE', headers: await headers(as) }),
    stop: async () => {
      await service.shutdown();
      await dropSchemas([schema]);
      await deleteStreams([stream]);
    },
  };
}

export const admin: Caller = { kind: 'admin' };

/** An API key of `orgId`, as the gateway describes it after authenticating it. */
export function apiKeyOf(orgId: string): Caller {
  return { kind: 'api-key', orgId, keyId: randomUUID(), keyName: 'CI key ü' };
}

export const newOrgId = () => randomUUID();

export async function json<T = any>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return JSON.parse(text) as T;
}

export async function problem(res: Response, status: number): Promise<Record<string, any>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as Record<string, any>;
  for (const field of ['type', 'title', 'status', 'detail', 'instance', 'traceId']) expect(body).toHaveProperty(field);
  expect(body.status).toBe(status);
  return body;
}

export async function createSite(svc: TestService, orgId: string, name = 'Storefront'): Promise<{ id: string; name: string }> {
  return json(await svc.post(`/admin/v1/organizations/${orgId}/sites`, { name, url: 'https://shop.example.com' }, admin), 201);
}

export async function createCampaign(svc: TestService, siteId: string, name = 'Spring launch'): Promise<Record<string, any>> {
  return json(await svc.post(`/admin/v1/sites/${siteId}/campaigns`, { name }, admin), 201);
}

export async function moveCampaign(svc: TestService, id: string, to: string, reason?: string): Promise<Response> {
  return svc.post(`/admin/v1/campaigns/${id}/status`, reason === undefined ? { to } : { to, reason }, admin);
}

export const PUBLIC_CAMPAIGN_FIELDS = ['createdAt', 'gate', 'id', 'name', 'readinessLevel', 'siteId', 'siteName', 'status'];
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';
