import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createDatabase, type Database } from '@preflight/db';
import type { Caller } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, TEST_NATS_URL, dropSchemas, isolatedName, serviceAuthConfig, serviceCall, type Reply } from '@preflight/testing';
import { startWebhookService } from '../src/app.ts';
import { loadWebhookConfig } from '../src/config.ts';
import type { WebhookDatabase } from '../src/storage/schema.ts';
import type { HostResolver } from '@preflight/net';
import { startDeliveryStandIn, type DeliveryStandIn } from './delivery-stand-in.ts';

export const asKey = (orgId: string, keyName = 'CI pipeline'): Caller => ({ kind: 'api-key', orgId, keyId: randomUUID(), keyName });
export const asAdmin: Caller = { kind: 'admin' };

/** A fresh `id:base64` AES-256 key for WEBHOOK_SECRET_KEYS. */
export const newKey = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;

export type { Reply } from '@preflight/testing';

export interface Harness {
  base: string;
  schema: string;
  /** EVENTS_SUBJECT_PREFIX of this instance: its endpoint-change signals go under it. */
  subjectPrefix: string;
  /** Direct access to the service's tables, to check what is stored. */
  db: Database<WebhookDatabase>['db'];
  /** The delivery service's stand-in (DELIVERY_URL), unless `deliveryUrl` named another. */
  delivery: DeliveryStandIn;
  call(method: string, path: string, opts?: { as?: Caller; body?: unknown; headers?: Record<string, string> }): Promise<Reply>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** WEBHOOK_SECRET_KEYS; a fresh single key by default. */
  secretKeys?: string;
  allowPrivateTargets?: boolean;
  resolveHost?: HostResolver;
  /** Run against an existing schema (another harness's); it is then left for its owner to drop. */
  schema?: string;
  /** DELIVERY_URL; the harness's own stand-in by default. */
  deliveryUrl?: string;
}

/** The webhook service on a loopback port, in a schema of its own (or a given one). */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const ownsSchema = opts.schema === undefined;
  const schema = opts.schema ?? isolatedName('webhook');
  const subjectPrefix = isolatedName('webhook_subj');
  const delivery = await startDeliveryStandIn();
  const config = loadWebhookConfig(
    {
      WEBHOOK_PORT: '0',
      NATS_URL: TEST_NATS_URL,
      EVENTS_SUBJECT_PREFIX: subjectPrefix,
      DATABASE_URL: TEST_DATABASE_URL,
      DB_SCHEMA: schema,
      DB_POOL_MAX: '4',
      WEBHOOK_SECRET_KEYS: opts.secretKeys ?? newKey('k1'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: String(opts.allowPrivateTargets ?? false),
      DELIVERY_URL: opts.deliveryUrl ?? delivery.url,
    },
    false,
  );
  const service = await startWebhookService({
    config: { ...config, ...serviceAuthConfig('webhook') },
    logger: createLogger('webhook-test', { level: 'silent' }),
    host: '127.0.0.1',
    exitOnShutdown: false,
    ...(opts.resolveHost ? { resolveHost: opts.resolveHost } : {}),
  }).catch(async (err) => {
    await delivery.close();
    if (ownsSchema) await dropSchemas([schema]);
    throw err;
  });
  const reader = createDatabase<WebhookDatabase>({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
  const base = `http://127.0.0.1:${service.port}`;
  return {
    base,
    schema,
    subjectPrefix,
    db: reader.db,
    delivery,
    // As the gateway for a caller; without one, as the delivery service (the internal routes' one peer).
    call: serviceCall('webhook', () => base, 'delivery'),
    async close() {
      await service.shutdown('test finished');
      await reader.close();
      await delivery.close();
      if (ownsSchema) await dropSchemas([schema]);
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

/** Public addresses for tests that must pass the target check without DNS. */
export const PUBLIC_URL = 'https://93.184.215.14/hooks/preflight';
