import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { IssueStatus } from '@preflight/contract';
import { sql } from '@preflight/db';
import { createEvent, toTimestamp, type DomainEvent } from '@preflight/events';
import type { Caller } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, TEST_NATS_URL, deleteStreams, dropSchemas, eventPublisher, isolatedName, serviceAuthConfig, serviceAuthHeaders, serviceCall, type Publisher, type Reply } from '@preflight/testing';
import { startIntegrationService, type IntegrationResolvers, type RunningIntegrationService } from '../src/app.ts';
import { loadIntegrationConfig } from '../src/config.ts';

export const asAdmin: Caller = { kind: 'admin' };
export const newKey = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;

// ---- The issue service, as far as the integration service uses it --------------------------

export interface StandInIssue {
  id: string;
  orgId: string;
  seqNumber: number;
  campaignId: string;
  campaignName: string | null;
  title: string;
  severity: string | null;
  type: string | null;
  status: IssueStatus;
  description: string | null;
  pageUrl: string | null;
  testerEmail: string | null;
  createdAt: string;
}

export interface StatusChangeCall {
  issueId: string;
  to: IssueStatus;
  reason: string;
  origin: string;
}

export interface IssueStandIn {
  url: string;
  issues: Map<string, StandInIssue>;
  changes: StatusChangeCall[];
  /** Statuses the stand-in's workflow refuses to move to (409), as the issue service does for a disallowed move. */
  refuse: Set<IssueStatus>;
  close(): Promise<void>;
}

/** GET /internal/v1/issues/:id and POST /internal/v1/issues/:id/status, in memory. */
export async function startIssueStandIn(): Promise<IssueStandIn> {
  const stub = { issues: new Map<string, StandInIssue>(), changes: [] as StatusChangeCall[], refuse: new Set<IssueStatus>() };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const match = /^\/internal\/v1\/issues\/([^/]+)(\/status)?$/.exec(req.url ?? '');
      const issue = match ? stub.issues.get(match[1]!) : undefined;
      if (!match || !issue) return json(404, { status: 404, title: 'Not Found' });
      if (req.method === 'GET' && !match[2]) return json(200, detailOf(issue));
      if (req.method === 'POST' && match[2]) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<StatusChangeCall, 'issueId'>;
        if (stub.refuse.has(body.to) || body.to === issue.status) {
          return json(409, { status: 409, detail: `The issue is ${issue.status}; it cannot move to ${body.to}.`, currentStatus: issue.status, allowedTransitions: [] });
        }
        stub.changes.push({ issueId: issue.id, ...body });
        issue.status = body.to;
        return json(200, detailOf(issue));
      }
      json(405, { status: 405 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...stub,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function detailOf(i: StandInIssue) {
  const none = null;
  return {
    ...i,
    stepsToReproduce: none,
    expectedBehavior: none,
    actualBehavior: none,
    pageTitle: none,
    browserName: 'Firefox',
    browserVersion: '132',
    operatingSystem: none,
    deviceType: none,
    screenResolution: none,
    screenshotUrl: none,
    reporter: i.testerEmail,
    assigneeName: none,
    duplicateOfId: none,
    duplicateOfSeqNumber: none,
    updatedAt: i.createdAt,
    siteId: randomUUID(),
    siteName: 'Shop',
    history: [],
  };
}

// ---- The integration service ----------------------------------------------------------------

export type { Reply } from '@preflight/testing';

export interface IntegrationHarness {
  base: string;
  /** Where the trackers' hooks go: a stand-in for the gateway that forwards them with its service token. */
  hookBase: string;
  schema: string;
  prefix: string;
  service: RunningIntegrationService;
  issues: IssueStandIn;
  pub: Publisher;
  call(method: string, path: string, opts?: { as?: Caller | null; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> }): Promise<Reply>;
  /** Files an issue in the stand-in and publishes its IssueCreated, as the issue service would. */
  fileIssue(orgId: string, campaignId: string, fields?: Partial<StandInIssue>): Promise<StandInIssue>;
  /** Moves an issue in the stand-in and publishes its IssueStatusChanged. */
  moveIssue(issueId: string, to: IssueStatus, opts?: { origin?: string; reason?: string }): Promise<void>;
  /** Events the consumer has recorded in its inbox so far. */
  consumedEvents(): Promise<number>;
  /** Restarts the service on the same schema and stream (a crash or a deploy). */
  restart(): Promise<void>;
}

/**
 * The gateway's part in a tracker's hook: the request forwarded as is (body byte for byte, the
 * tracker's headers) with the gateway's service token, without which the service answers 401.
 */
async function startHookRelay(target: () => string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers[name] = value;
        const answer = await fetch(`${target()}${req.url}`, { method: req.method, headers: { ...headers, ...(await serviceAuthHeaders('integration')) }, body: Buffer.concat(chunks) });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export const FAST: Record<string, string> = {
  INTEGRATION_POLL_INTERVAL_MS: '100',
  INTEGRATION_CALL_TIMEOUT_MS: '1000',
  INTEGRATION_LEASE_MS: '10000',
  INTEGRATION_BREAKER_RESET_MS: '500',
  INTEGRATION_CREATE_RETRY_MIN_MS: '0',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
};

/** One integration service on a schema and stream of its own, with the issue stand-in and a publisher, for a test file. */
export function integrationSuite(env: Record<string, string> = {}, resolvers: IntegrationResolvers = {}) {
  const h = {} as IntegrationHarness;
  const schema = isolatedName('integration');
  const stream = isolatedName('integration_events');
  const prefix = isolatedName('integration_subj');
  const keys = newKey('k1');
  let seq = 0;
  let hookRelay: { url: string; close(): Promise<void> } | undefined;

  const start = async () => {
    const config = loadIntegrationConfig(
      {
        INTEGRATION_PORT: '0',
        DATABASE_URL: TEST_DATABASE_URL,
        DB_SCHEMA: schema,
        DB_POOL_MAX: '6',
        NATS_URL: TEST_NATS_URL,
        EVENTS_STREAM: stream,
        EVENTS_SUBJECT_PREFIX: prefix,
        EVENTS_STREAM_MAX_AGE_HOURS: '1',
        INTEGRATION_SECRET_KEYS: keys,
        ISSUE_URL: h.issues.url,
        ISSUE_LINK_TEMPLATE: 'https://app.preflight.test/issues/{issueId}',
        PUBLIC_BASE_URL: 'https://api.preflight.test',
        ...FAST,
        ...env,
      },
      false,
    );
    h.service = await startIntegrationService({ config: { ...config, ...serviceAuthConfig('integration') }, logger: createLogger('integration-test', { level: 'silent' }), host: '127.0.0.1', exitOnShutdown: false, ...resolvers });
    h.base = h.service.url;
  };

  beforeAll(async () => {
    h.schema = schema;
    h.prefix = prefix;
    h.issues = await startIssueStandIn();
    await start();
    hookRelay = await startHookRelay(() => h.base);
    h.hookBase = hookRelay.url;
    h.pub = await eventPublisher(prefix);
    // As the gateway for the operator unless told otherwise (null: the gateway without a caller).
    const call = serviceCall('integration', () => h.base);
    h.call = (method, path, { as = asAdmin, ...rest } = {}) => call(method, path, { as, ...rest });
    h.fileIssue = async (orgId, campaignId, fields = {}) => {
      seq += 1;
      const issue: StandInIssue = {
        id: randomUUID(),
        orgId,
        seqNumber: seq,
        campaignId,
        campaignName: 'Spring release',
        title: `Checkout button does nothing ${seq}`,
        severity: 'High',
        type: 'Bug',
        status: 'New',
        description: 'Nothing happens on click.',
        pageUrl: 'https://shop.example.com/checkout',
        testerEmail: 'tess@example.com',
        createdAt: new Date().toISOString(),
        ...fields,
      };
      h.issues.issues.set(issue.id, issue);
      const event: DomainEvent = createEvent('IssueCreated', {
        issueId: issue.id,
        orgId,
        campaignId,
        seqNumber: issue.seqNumber,
        title: issue.title,
        ...(issue.severity ? { severity: issue.severity } : {}),
        ...(issue.type ? { type: issue.type } : {}),
        status: issue.status,
        ...(issue.pageUrl ? { pageUrl: issue.pageUrl } : {}),
        ...(issue.testerEmail ? { testerEmail: issue.testerEmail } : {}),
        createdAt: toTimestamp(new Date(issue.createdAt)),
        revision: 1,
      });
      await h.pub.publish(event, { orgId });
      return issue;
    };
    h.moveIssue = async (issueId, to, { origin, reason } = {}) => {
      const issue = h.issues.issues.get(issueId)!;
      const from = issue.status;
      issue.status = to;
      const event = createEvent('IssueStatusChanged', {
        issueId,
        orgId: issue.orgId,
        campaignId: issue.campaignId,
        title: issue.title,
        ...(issue.severity ? { severity: issue.severity } : {}),
        oldStatus: from,
        newStatus: to,
        ...(reason ? { reason } : {}),
        ...(origin ? { origin } : {}),
        occurredAt: toTimestamp(new Date()),
        revision: 2,
      });
      await h.pub.publish(event, { orgId: issue.orgId });
    };
    h.consumedEvents = () => consumedSince(h, 'all');
    h.restart = async () => {
      await h.service.shutdown('test restart');
      await start();
    };
  });

  afterAll(async () => {
    await h.pub?.close();
    await hookRelay?.close();
    await h.service?.shutdown('test finished');
    await h.issues?.close();
    await deleteStreams([stream]);
    await dropSchemas([schema]);
  });
  return h;
}

/** A connection through the admin API; fails the test unless it is created. */
export async function connect(h: IntegrationHarness, orgId: string, body: Record<string, unknown>): Promise<any> {
  const res = await h.call('POST', `/admin/v1/organizations/${orgId}/integrations`, { body });
  if (res.status !== 201) throw new Error(`connection not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The connection's activity, newest first. */
export const activityOf = async (h: IntegrationHarness, connectionId: string): Promise<any[]> => (await h.call('GET', `/admin/v1/integrations/${connectionId}/activity?limit=200`)).body;

/** The connection as the admin list shows it (undefined once deleted). */
export async function connectionOf(h: IntegrationHarness, orgId: string, connectionId: string): Promise<any> {
  const res = await h.call('GET', `/admin/v1/organizations/${orgId}/integrations`);
  if (res.status !== 200) throw new Error(`list failed: ${res.status}`);
  return (res.body as any[]).find((c) => c.id === connectionId);
}

/** The connection's jobs in the service's schema, oldest first: what is still to be tried. */
export async function jobsOf(h: IntegrationHarness, connectionId: string): Promise<Array<{ action: string; state: string; attempts: number; issueId: string | null }>> {
  const { rows } = await sql<{ action: string; state: string; attempts: number; issue_id: string | null }>`
    select action, state, attempts, issue_id from jobs where connection_id = ${connectionId} order by created_at, id`.execute(h.service.database.db);
  return rows.map((r) => ({ action: r.action, state: r.state, attempts: r.attempts, issueId: r.issue_id }));
}

/** The sample of a metric without labels of its own (only the service's default ones) on /metrics, as a scrape sees it. */
/**
 * Events the sync consumer finished since this process started, by /metrics: with `'all'` every
 * outcome, else one (`skipped`: acked without a transaction, the organisation has no live connection).
 */
export async function consumedSince(h: IntegrationHarness, outcome: string): Promise<number> {
  const text = await (await fetch(`${h.base}/metrics`)).text();
  let n = 0;
  for (const line of text.split('\n')) {
    const match = /^consumer_processed_total\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || !match[1]!.includes('consumer="integration-sync"')) continue;
    if (outcome === 'all' || match[1]!.includes(`outcome="${outcome}"`)) n += Number(match[2]);
  }
  return n;
}

export async function metricValue(h: IntegrationHarness, name: string): Promise<number> {
  const text = await (await fetch(`${h.base}/metrics`)).text();
  const sample = new RegExp(`^${name}(?:\\{service="[^"]*"\\})? (\\S+)$`);
  for (const line of text.split('\n')) {
    const match = sample.exec(line);
    if (match) return Number(match[1]);
  }
  throw new Error(`no sample of ${name} on /metrics`);
}
