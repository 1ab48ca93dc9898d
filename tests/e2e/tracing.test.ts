import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@preflight/testing';
import { call, freshTenant } from '../support/client.ts';
import { startReceiver } from '../support/receiver.ts';
import { startSystem, type RunningSystem } from '../support/system.ts';

/** One span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
interface Span {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}
const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (v: AnyValue) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
const attrs = (list: Array<{ key: string; value: AnyValue }> = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** An OTLP/HTTP trace collector on a loopback port that keeps every span it is sent (JSON encoding). */
async function startCollector() {
  const spans: Span[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      if (req.url === '/v1/traces') {
        const json = JSON.parse(body.toString('utf8'));
        for (const rs of json.resourceSpans ?? []) {
          const service = String(attrs(rs.resource?.attributes)['service.name']);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind, attributes: attrs(s.attributes), links: s.links ?? [] });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, spans, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

type Collector = Awaited<ReturnType<typeof startCollector>>;
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A system exporting to its own collector (what the charts set to turn tracing on, docs/operations.md "Reading a trace"; a short batch delay for the test). */
function tracedSystem(options: { built?: boolean } = {}) {
  const ctx = {} as { sys: RunningSystem; collector: Collector; receiver: Receiver };
  beforeAll(async () => {
    ctx.collector = await startCollector();
    ctx.receiver = await startReceiver();
    ctx.sys = await startSystem({ OTEL_EXPORTER_OTLP_ENDPOINT: ctx.collector.url, OTEL_BSP_SCHEDULE_DELAY: '200' }, options);
  }, 180_000);
  afterAll(async () => {
    await ctx.sys?.stop();
    await ctx.receiver?.close();
    await ctx.collector?.close();
  });
  return ctx;
}

/** Files one issue through the gateway and checks that every hop's spans are in its one trace. */
async function filesOneIssueAsOneTrace({ sys, collector, receiver }: { sys: RunningSystem; collector: Collector; receiver: Receiver }) {
    const t = await freshTenant(sys);
    const key = t.keys.all!.key;
    const hook = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: key, body: { url: receiver.url, events: ['IssueCreated'] } });
    expect(hook.status).toBe(201);
    await t.admin.setCampaignStatus(t.campaign.id, 'Active');

    const filed = await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, {
      apiKey: key,
      body: { title: 'Checkout button dead', severity: 'High', type: 'ContentError', pageUrl: 'https://shop.example.com/checkout' },
    });
    expect(filed.status).toBe(201);
    const traceId = filed.headers.get('x-trace-id')!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    // The receiver is called inside the same trace.
    const delivery = await eventually(
      () => {
        const d = receiver.received.find((r) => JSON.parse(r.body).data?.issueId === filed.body.id);
        expect(d).toBeDefined();
        return d!;
      },
      { timeoutMs: 20_000 },
    );
    expect(String(delivery.headers.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const inTrace = () => collector.spans.filter((s) => s.traceId === traceId);
    const find = (service: string, kind: number, name: RegExp | string) =>
      inTrace().find((s) => s.service === service && s.kind === kind && (typeof name === 'string' ? s.name === name : name.test(s.name)));
    const subject = `${sys.env.EVENTS_SUBJECT_PREFIX}.issue.`;
    // Every hop's span has arrived (each process exports on its own schedule).
    await eventually(
      () => {
        expect(find('gateway', KIND.server, 'POST /api/v1/campaigns/:id/issues')).toBeDefined();
        expect(find('issue', KIND.server, 'POST /api/v1/campaigns/:id/issues')).toBeDefined();
        expect(find('issue', KIND.producer, `publish ${subject}created`)).toBeDefined();
        expect(find('delivery', KIND.consumer, `process ${subject}created`)).toBeDefined();
        expect(inTrace().find((s) => s.service === 'delivery' && s.kind === KIND.client && String(s.attributes['url.full']).startsWith(receiver.url))).toBeDefined();
      },
      { timeoutMs: 20_000 },
    );

    const parentOf = (s: Span) => inTrace().find((p) => p.spanId === s.parentSpanId);
    /** The chain of ancestors of a span, nearest first, as "service kind name". */
    const ancestry = (s: Span) => {
      const chain: Span[] = [];
      for (let p = parentOf(s); p; p = parentOf(p)) chain.push(p);
      return chain;
    };

    // gateway: the request (route name from express), its key lookup in Postgres, the forward to the issue service.
    const gatewayServer = find('gateway', KIND.server, 'POST /api/v1/campaigns/:id/issues')!;
    expect(gatewayServer.parentSpanId).toBe('');
    expect(gatewayServer.attributes['http.route']).toBe('/api/v1/campaigns/:id/issues');
    const forward = inTrace().find((s) => s.service === 'gateway' && s.kind === KIND.client && String(s.attributes['url.full']).startsWith(sys.serviceUrls.issue))!;
    expect(forward).toBeDefined();
    expect(ancestry(forward)).toContain(gatewayServer);

    // issue: its request is the forward's child; the outbox insert is a pg span inside it.
    const issueServer = find('issue', KIND.server, 'POST /api/v1/campaigns/:id/issues')!;
    expect(parentOf(issueServer)).toBe(forward);
    const outboxInsert = inTrace().find((s) => s.service === 'issue' && s.kind === KIND.client && s.name === 'INSERT outbox');
    expect(outboxInsert).toBeDefined();
    expect(outboxInsert!.attributes['db.system.name']).toBe('postgresql');
    expect(String(outboxInsert!.attributes['db.query.text'])).toMatch(/^\s*insert into outbox/);
    expect(ancestry(outboxInsert!)).toContain(issueServer);

    // The relay's publish: a PRODUCER span whose parent is the span that enqueued the event.
    const publish = inTrace().find((s) => s.service === 'issue' && s.kind === KIND.producer)!;
    expect(publish.attributes['messaging.system']).toBe('nats');
    expect(ancestry(publish)).toContain(issueServer);

    // delivery: the fan-out consumer's span is the publish's child; the POST to the receiver descends from it.
    const fanout = inTrace().find((s) => s.service === 'delivery' && s.kind === KIND.consumer && s.attributes['messaging.consumer.group.name'] === 'delivery-fanout')!;
    expect(fanout).toBeDefined();
    expect(parentOf(fanout)).toBe(publish);
    const attempt = inTrace().find((s) => s.service === 'delivery' && s.kind === KIND.client && String(s.attributes['url.full']).startsWith(receiver.url))!;
    expect(attempt.name).toBe('POST');
    expect(ancestry(attempt)).toContain(fanout);
    expect(delivery.headers.traceparent).toBe(`00-${traceId}-${attempt.spanId}-01`);

    // The event's other consumers (the campaign's readiness projection, the integration's sync) join the same trace.
    await eventually(() => {
      const consumers = inTrace().filter((s) => s.kind === KIND.consumer && parentOf(s)?.spanId === publish.spanId);
      expect(new Set(consumers.map((s) => s.service))).toEqual(new Set(['campaign', 'delivery', 'integration']));
    });

    // Probes and scrapes make no spans.
    expect(collector.spans.some((s) => /healthz|readyz|metrics/.test(s.name))).toBe(false);
}

describe('tracing (OTLP export on), services run from their sources', () => {
  const ctx = tracedSystem();
  it('shows one issue filed through the gateway as one trace: gateway → issue → outbox → JetStream → consumers → webhook attempt → receiver', () => filesOneIssueAsOneTrace(ctx), 90_000);
});

describe('tracing (OTLP export on), services run from the bundles the images run', () => {
  const ctx = tracedSystem({ built: true });
  it('patches express, pg and undici the same way (scripts/build-service.mjs splits the bundle at main.ts\'s dynamic imports)', () => filesOneIssueAsOneTrace(ctx), 90_000);
});
