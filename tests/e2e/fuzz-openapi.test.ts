import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESERVED_EVENT_TYPES, responseSchemaFor } from '@preflight/contract';
import { call, freshTenant } from '../support/client.ts';
import { rawHttpClient, type RawRequest, type RawResponse } from '../support/raw-http-client.ts';
import { deref, schemaArbitrary, type JsonSchema } from '../support/schema-arbitrary.ts';
import { startSystem, type RunningSystem } from '../support/system.ts';

// Issue 22, "keep the probes as suites": a fuzzer driven by the OpenAPI document the gateway
// serves. For every operation in it, fast-check generates valid requests (built from the
// schemas, with a fresh tenant's real ids and keys) and hostile ones (wrong types, missing and
// extra properties, prototype names, huge strings, NUL and lone surrogates, deep nesting, bad
// ids, odd and repeated query parameters, wrong media types and methods, broken credentials).
// Every answer must be a status the document lists for the operation (or a documented generic
// one: 400, 401, 403, 404, 405, 408, 413, 415, 422), with the documented media type, a problem
// body of the documented shape or a success body valid against the response schema, the
// documented headers, and never a 5xx. Each kind of request also has the answer a client is
// promised (docs/api.md), e.g. 415 for a wrong media type, 404 for a malformed id.
//
// Its own system: the rate limit is raised (RATE_LIMIT_MAX) so 5,000 requests are never 429,
// which this suite counts as a failure; 429 itself is covered by tests/e2e/rate-limit.test.ts.
// Replay a failure with FUZZ_SEED=<seed printed> (each of the workers uses seed + its index).
const SEED = Number(process.env.FUZZ_SEED ?? 2_205_022);
const RUNS = Number(process.env.FUZZ_RUNS ?? 5_200);
const WORKERS = 4;
const RATE_LIMIT = 1_000_000;
const BODY_LIMIT = 256 * 1024;
const GENERIC = [400, 401, 403, 404, 405, 408, 413, 415, 422];
const PROBLEM_TYPE = 'https://preflight.dev/problems/';
const RATE_LIMIT_HEADERS = ['ratelimit-policy', 'ratelimit', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];
/** Placeholder for an endpoint created during the run, replaced when the request is sent (each is deleted once). */
const CREATED_WEBHOOK = '{created-webhook}';

type IdSource = 'campaign' | 'issue' | 'webhook' | 'eventKey';
/** Which kind of id a path parameter takes, from the collection it follows (`/campaigns/{id}`). */
const ID_SOURCES: Record<string, IdSource> = { campaigns: 'campaign', issues: 'issue', webhooks: 'webhook', events: 'eventKey' };

interface Operation {
  key: string;
  method: string;
  template: string;
  scope: string | null;
  /** Needs a key (`security` not emptied): its answers carry the rate-limit headers. */
  secured: boolean;
  pathParams: Array<{ name: string; source: IdSource }>;
  queryParams: Array<{ name: string; schema: JsonSchema }>;
  body?: JsonSchema;
  bodyTypes: string[];
  documented: number[];
  /** Statuses a valid request gets. */
  success: number[];
  /** Methods the path answers (for 405). */
  pathMethods: string[];
}

/** One generated request and what a client is promised for it. */
interface Case {
  op: string;
  kind: string;
  req: RawRequest;
  /** The statuses this kind of request may get. */
  expect: number[];
  /** Whether the key was checked (so the rate-limit headers are due); undefined when the request may be refused before. */
  authenticated?: boolean;
}

let sys: RunningSystem;
let client: ReturnType<typeof rawHttpClient>;
let doc: JsonSchema;
let ops: Operation[];
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
const validators = new Map<string, ValidateFunction>();
const ids: Record<IdSource, string[]> = { campaign: [], issue: [], webhook: [], eventKey: [] };
const foreign: Record<IdSource, string[]> = { campaign: [], issue: [], webhook: [], eventKey: [] };
const createdWebhooks: string[] = [];
const keys = { issues: '', issuesNoScope: '', hooks: '', hooksNoScope: '' };

beforeAll(async () => {
  sys = await startSystem({ RATE_LIMIT_MAX: String(RATE_LIMIT) });
  client = rawHttpClient(sys.gatewayUrl, { maxSockets: WORKERS * 2 });
  const served = await call(sys, 'GET', '/api/v1/openapi.json');
  expect(served.status).toBe(200);
  doc = served.body;
  ops = operationsOf(doc);
  // Issues are filed in one organisation and webhooks created in another, so no IssueCreated
  // ever goes to the thousands of URLs the fuzzer subscribes.
  const scopes = { all: ['read', 'write', 'webhooks'], none: [] };
  const [issues, hooks, other] = await Promise.all([freshTenant(sys, scopes), freshTenant(sys, scopes), freshTenant(sys)]);
  keys.issues = issues.keys.all!.key;
  keys.issuesNoScope = issues.keys.none!.key;
  keys.hooks = hooks.keys.all!.key;
  keys.hooksNoScope = hooks.keys.none!.key;
  const second = await issues.admin.createCampaign(issues.site.id, 'Second');
  ids.campaign.push(issues.campaign.id, second.id);
  for (const [i, severity] of ['Critical', 'High', 'Low', 'Trivial'].entries()) {
    const issue = await issues.admin.createIssue(ids.campaign[i % 2]!, { title: `Seed ${i}`, severity, type: 'Bug' });
    ids.issue.push(issue.id);
  }
  const events = await call(sys, 'GET', '/api/v1/events', { apiKey: keys.issues });
  ids.eventKey.push(...(events.body as string[]));
  for (let i = 0; i < 3; i++) {
    const created = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: keys.hooks, body: { url: `https://hooks.example.com/${i}` } });
    expect(created.status).toBe(201);
    (i === 0 ? ids.webhook : createdWebhooks).push(created.body.id);
  }
  foreign.campaign.push(other.campaign.id);
  foreign.issue.push((await other.admin.createIssue(other.campaign.id, { title: 'Theirs', severity: 'High', type: 'Bug' })).id);
  const theirs = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: other.keys.all!.key, body: { url: 'https://theirs.example.com/' } });
  foreign.webhook.push(theirs.body.id);
}, 180_000);

afterAll(async () => {
  client?.close();
  await sys?.stop();
});

/** The operations of the served document, with what the fuzzer needs of each. */
function operationsOf(document: JsonSchema): Operation[] {
  const result: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, JsonSchema>>)) {
    const pathMethods = Object.keys(item).filter((m) => m !== 'parameters').map((m) => m.toUpperCase());
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const params = ((op.parameters ?? []) as JsonSchema[]).map((p) => deref(document, p));
      const segments = template.split('/');
      const pathParams = params
        .filter((p) => p.in === 'path')
        .map((p) => {
          const before = segments[segments.indexOf(`{${p.name}}`) - 1] ?? '';
          const source = ID_SOURCES[before];
          if (!source) throw new Error(`fuzz: no id source for {${p.name}} after '${before}' in ${template}; add it to ID_SOURCES`);
          return { name: p.name as string, source };
        });
      const content = (op.requestBody?.content ?? {}) as Record<string, { schema: JsonSchema }>;
      const documented = Object.keys(op.responses).map(Number);
      result.push({
        key: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        scope: (op['x-required-scope'] as string | null | undefined) ?? null,
        secured: !(Array.isArray(op.security) && op.security.length === 0),
        pathParams,
        queryParams: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
        body: content['application/json']?.schema,
        bodyTypes: Object.keys(content),
        documented,
        success: documented.filter((s) => s >= 200 && s < 300),
        pathMethods,
      });
    }
  }
  return result;
}

// ---- generation -------------------------------------------------------------------------

const urlArb = fc
  .tuple(fc.constantFrom('http', 'https'), fc.domain(), fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined }), fc.webPath())
  .map(([scheme, host, port, path]) => `${scheme}://${host}${port ? `:${port}` : ''}${path}`);

/** Values the schemas cannot express: URLs the services take, event names from the catalogue. */
function refine(path: readonly string[], schema: JsonSchema) {
  if (schema.format === 'uri') return urlArb;
  if (path.at(-1) === '[]' && path.at(-2) === 'events') return fc.constantFrom(...ids.eventKey, ...RESERVED_EVENT_TYPES);
  return undefined;
}

const keyFor = (op: Operation) => (op.template.includes('/webhooks') ? keys.hooks : keys.issues);
const noScopeKeyFor = (op: Operation) => (op.template.includes('/webhooks') ? keys.hooksNoScope : keys.issuesNoScope);
const uuid = fc.uuid();

/** Accept headers and the success media type each gets (docs/api.md, "Media types"). */
const ACCEPTS: Array<[string | undefined, string]> = [
  [undefined, 'application/json'],
  ['application/json', 'application/json'],
  ['*/*', 'application/json'],
  ['text/json', 'text/json'],
  ['text/plain', 'text/plain'],
  ['application/xml', 'application/json'],
  ['text/plain;q=0.5, text/json', 'text/json'],
];

interface Parts {
  params: Record<string, string>;
  query: Array<[string, string]>;
  headers: Record<string, string | string[]>;
  body?: unknown;
  contentType: string;
}

function validParts(op: Operation): fc.Arbitrary<Parts> {
  const params = fc.record(
    Object.fromEntries(op.pathParams.map((p) => [p.name, p.source === 'webhook' && op.method === 'DELETE' ? fc.constant(CREATED_WEBHOOK) : fc.constantFrom(...ids[p.source])])),
  ) as fc.Arbitrary<Record<string, string>>;
  const query = fc
    .tuple(...op.queryParams.map((q) => fc.option(schemaArbitrary(doc, q.schema, refine).map((v) => [q.name, String(v)] as [string, string]), { nil: undefined })))
    .map((pairs) => pairs.filter((p): p is [string, string] => p !== undefined));
  const auth = fc
    .constantFrom('authorization', 'x-api-key')
    .map((h): Record<string, string> => (h === 'authorization' ? { authorization: `Bearer ${keyFor(op)}` } : { 'x-api-key': keyFor(op) }));
  const accept = fc.constantFrom(...ACCEPTS.map(([a]) => a));
  const idempotency = op.method === 'POST' ? fc.option(uuid, { nil: undefined }) : fc.constant(undefined);
  const body = op.body ? schemaArbitrary(doc, op.body, refine) : fc.constant(undefined);
  const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/json', 'application/vnd.preflight+json');
  return fc.record({ params, query, auth, accept, idempotency, body, contentType }).map(({ params: p, query: q, auth: a, accept: acc, idempotency: idem, body: b, contentType: ct }) => ({
    params: p,
    query: q,
    headers: { ...a, ...(acc ? { accept: acc } : {}), ...(idem ? { 'idempotency-key': idem } : {}) },
    body: b,
    contentType: ct,
  }));
}

/** The request of some parts; `bodyText` replaces the JSON of `parts.body`. */
function render(op: Operation, parts: Parts, over: { method?: string; bodyText?: string | Buffer; noBody?: boolean } = {}): RawRequest {
  const path = op.template.replace(/\{(\w+)\}/g, (_m, name: string) => parts.params[name] ?? '');
  const query = parts.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const headers = { ...parts.headers };
  let body: string | Buffer | undefined;
  if (!over.noBody && (over.bodyText !== undefined || parts.body !== undefined)) {
    body = over.bodyText ?? JSON.stringify(parts.body);
    headers['content-type'] ??= parts.contentType;
  }
  return { method: over.method ?? op.method, path: query ? `${path}?${query}` : path, headers, body };
}

function makeCase(op: Operation, kind: string, req: RawRequest, expectStatuses: number[], authenticated?: boolean): Case {
  const c: Case = { op: op.key, kind, req, expect: expectStatuses, authenticated: op.secured ? authenticated : false };
  // fast-check prints a counterexample with this; a 250 KB body would drown the report.
  Object.defineProperty(c, fc.toStringMethod, { value: () => describeCase(c) });
  return c;
}

function describeCase(c: Case) {
  const body = c.req.body === undefined ? '' : ` body(${Buffer.byteLength(c.req.body)} B)=${JSON.stringify(c.req.body.toString().slice(0, 300))}`;
  return `[${c.kind}] ${c.req.method} ${c.req.path.slice(0, 300)} headers=${JSON.stringify(c.req.headers)}${body} expect ${c.expect.join('|')}`;
}

/** Values of another JSON type than any the schema allows. */
function otherTypeValue(doc_: JsonSchema, schema: JsonSchema): fc.Arbitrary<unknown> {
  const node = deref(doc_, schema);
  const allowed = new Set<string>(
    (node.anyOf ?? node.oneOf ?? [node]).flatMap((s: JsonSchema) => {
      const n = deref(doc_, s);
      if (Array.isArray(n.enum)) return n.enum.map((v: unknown) => (v === null ? 'null' : typeof v));
      return Array.isArray(n.type) ? n.type : [n.type ?? 'object'];
    }),
  );
  const candidates: Array<[string, fc.Arbitrary<unknown>]> = [
    ['string', fc.string({ maxLength: 10 })],
    ['integer', fc.integer()],
    ['number', fc.double({ noNaN: true, noDefaultInfinity: true })],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 })],
    ['object', fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })],
  ];
  const usable = candidates.filter(([type]) => !allowed.has(type) && !(type === 'integer' && allowed.has('number')) && !(type === 'number' && allowed.has('integer')));
  return fc.oneof(...usable.map(([, arb]) => arb));
}

/** Strings that have broken parsers, databases and loggers before. */
const NASTY_STRINGS = [
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfff',
  '\ud83d',
  '\ufeffBOM',
  '\u202Eevil\u202C',
  'zero\u200bwidth',
  'e\u0301\u0301\u0301',
  '\u2028\u2029',
  '\uffff\ufffe',
  '💥🚀👩‍👩‍👧',
  '<script>alert(1)</script>',
  "'; drop table issues; --",
  '${7*7}{{7*7}}',
  '../../etc/passwd',
  '%00%ZZ',
  '\\u0000',
  ' \t\n\r ',
];
const nastyString = fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }));

/** Ids that name nothing: malformed, or shaped like an attack; each path-encoded. */
const badId = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }).map((s) => encodeURIComponent(s)),
  fc.constantFrom(
    '%00',
    '..',
    '%2e%2e',
    'null',
    'undefined',
    '0',
    '-1',
    '__proto__',
    'constructor',
    '{id}',
    '00000000-0000-0000-0000-00000000000g',
    'a0eebc999c0b4ef8bb6d6bb9bd380a11',
    '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11%00',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11x',
    '%F0%9F%92%A5',
    '%ED%A0%80',
    "1'%20or%20'1'='1",
    'x'.repeat(3_000),
  ),
);

/** Query values no parameter of the document accepts (enums and whole numbers ≥ 1 alike). */
const BAD_QUERY_VALUES = ['', ' ', 'Bogus', '0', '-1', '1.5', '1e3', '+1', ' 1', '0x10', '99999999999999999999', '２', 'NaN', 'null', '[]', 'open', 'HIGH'];

const WRONG_CONTENT_TYPES = ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'image/png'];

function casesFor(op: Operation): fc.Arbitrary<Case> {
  const parts = validParts(op);
  const success = op.pathParams.some((p) => p.source === 'webhook') && op.method === 'DELETE' ? [...op.success, 404] : op.success;
  const variants: Array<{ weight: number; arbitrary: fc.Arbitrary<Case> }> = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<Case>) => variants.push({ weight, arbitrary });

  add(8, parts.map((p) => makeCase(op, 'valid', render(op, p), success, true)));
  if (op.method === 'GET') add(1, parts.map((p) => makeCase(op, 'head', render(op, p, { method: 'HEAD' }), success, true)));

  if (op.secured) {
    const withAuth = (kind: string, headers: Record<string, string | string[]>, statuses: number[], authenticated: boolean) =>
      parts.map((p) => {
        const { authorization: _a, 'x-api-key': _k, ...rest } = p.headers;
        return makeCase(op, kind, render(op, { ...p, headers: { ...rest, ...headers } }), statuses, authenticated);
      });
    add(1, withAuth('no-key', {}, [401], false));
    add(
      2,
      fc
        .constantFrom('svc_test_', 'svc_test_0000000000000000000000000000', 'svc_live_x', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `Bearer ${'k'.repeat(4_000)}`, 'Token abc', 'Bearer svc_test_\u00e9')
        .chain((value) => withAuth('bad-key', value.startsWith('svc') ? { 'x-api-key': value } : { authorization: value }, [401], false)),
    );
    add(1, withAuth('two-authorization', { authorization: [`Bearer ${keyFor(op)}`, `Bearer ${keyFor(op)}`] }, [400], false));
    add(1, withAuth('bad-authorization-good-x-api-key', { authorization: 'Bearer svc_test_nope', 'x-api-key': keyFor(op) }, [401], false));
    add(1, withAuth('no-scope', { 'x-api-key': noScopeKeyFor(op) }, op.scope === null ? success : [403], true));
  }

  const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !op.pathMethods.includes(m));
  if (others.length > 0) add(1, fc.tuple(parts, fc.constantFrom(...others)).map(([p, m]) => makeCase(op, 'wrong-method', render(op, p, { method: m, noBody: m === 'GET' || m === 'DELETE' }), [405], false)));

  if (op.pathParams.length > 0) {
    const param = fc.constantFrom(...op.pathParams);
    add(
      2,
      fc.tuple(parts, param, fc.oneof(uuid, fc.constantFrom('00000000-0000-0000-0000-000000000000', ...op.pathParams.flatMap((p) => foreign[p.source])))).map(([p, which, id]) =>
        makeCase(op, 'foreign-or-unknown-id', render(op, { ...p, params: { ...p.params, [which.name]: id } }), [404], true),
      ),
    );
    add(3, fc.tuple(parts, param, badId).map(([p, which, id]) => makeCase(op, 'bad-id', render(op, { ...p, params: { ...p.params, [which.name]: id } }), [404])));
    add(1, fc.tuple(parts, param).map(([p, which]) => makeCase(op, 'malformed-percent-id', render(op, { ...p, params: { ...p.params, [which.name]: '%E0%A4%A' } }), [400, 404])));
  }

  if (op.queryParams.length > 0) {
    const param = fc.constantFrom(...op.queryParams.map((q) => q.name));
    add(2, fc.tuple(parts, param, fc.constantFrom(...BAD_QUERY_VALUES)).map(([p, name, value]) => makeCase(op, 'bad-query-value', render(op, { ...p, query: [...p.query.filter(([k]) => k !== name), [name, value]] }), [400], true)));
    add(
      1,
      fc.tuple(parts, fc.constantFrom(...op.queryParams)).chain(([p, q]) =>
        schemaArbitrary(doc, q.schema, refine).map((v) => makeCase(op, 'repeated-query', render(op, { ...p, query: [...p.query.filter(([k]) => k !== q.name), [q.name, String(v)], [q.name, String(v)]] }), [400], true)),
      ),
    );
    add(1, fc.tuple(parts, param).map(([p, name]) => makeCase(op, 'bracket-query', render(op, { ...p, query: [...p.query.filter(([k]) => k !== name), [`${name}[]`, '1'], [`${name}[a]`, '2']] }), [...success, 400], true)));
  }
  add(
    1,
    fc.tuple(parts, fc.constantFrom(...PROTOTYPE_NAMES, 'x', 'filter', 'limit', 'include'), fc.string({ maxLength: 20 })).map(([p, name, value]) =>
      makeCase(op, 'unknown-query', render(op, { ...p, query: [...p.query, [name, value], [name, value]] }), success, true),
    ),
  );

  if (op.body) {
    const body = deref(doc, op.body);
    const properties = Object.keys(body.properties ?? {});
    const required = (body.required ?? []) as string[];
    const withBody = (kind: string, statuses: number[], mutate: (value: Record<string, unknown>) => fc.Arbitrary<string | Buffer>, headers: Record<string, string> = {}) =>
      parts.chain((p) =>
        mutate(p.body as Record<string, unknown>).map((text) => makeCase(op, kind, render(op, { ...p, headers: { ...p.headers, ...headers } }, { bodyText: text }), statuses, true)),
      );
    const text = (v: unknown) => JSON.stringify(v);
    /** The body with one more member, written as text so `__proto__` is an own property. */
    const plus = (value: Record<string, unknown>, name: string, member: string) => `${text(value).slice(0, -1)}${Object.keys(value).length ? ',' : ''}${text(name)}:${member}}`;

    add(2, withBody('missing-required', [422], (v) => fc.constantFrom(...required).map((name) => text({ ...v, [name]: undefined }))));
    add(
      2,
      withBody('wrong-type', [422], (v) =>
        fc.constantFrom(...properties).chain((name) => otherTypeValue(doc, body.properties[name]).map((bad) => text({ ...v, [name]: bad }))),
      ),
    );
    add(2, withBody('extra-property', [422], (v) => fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ minLength: 1, maxLength: 12 }).filter((n) => !properties.includes(n))), fc.jsonValue({ maxDepth: 2 })).map(([name, member]) => plus(v, name, text(member) ?? 'null'))));
    add(
      1,
      withBody('huge-string', [422], (v) =>
        fc.tuple(fc.constantFrom(...properties.filter((n) => n !== 'events')), fc.integer({ min: 10_001, max: 240_000 })).map(([name, length]) => text({ ...v, [name]: 'x'.repeat(length) })),
      ),
    );
    add(
      2,
      withBody('nasty-unicode', [...op.success, 422], (v) =>
        fc.tuple(fc.constantFrom(...properties), nastyString).map(([name, s]) => text({ ...v, [name]: name === 'events' ? [s] : s })),
      ),
    );
    add(
      1,
      withBody('nul-character', [422], (v) =>
        fc.tuple(fc.constantFrom(...properties.filter((n) => n !== 'events')), fc.string({ maxLength: 10 })).map(([name, s]) => text({ ...v, [name]: `${s}\u0000${s}` })),
      ),
    );
    add(
      1,
      withBody('deep-nesting', [422], (v) =>
        fc.tuple(fc.constantFrom(...properties), fc.integer({ min: 65, max: 20_000 }), fc.boolean()).map(([name, depth, arrays]) =>
          plus({ ...v, [name]: undefined }, name, arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
        ),
      ),
    );
    add(1, withBody('not-an-object', [422], () => fc.constantFrom('[]', '[{}]', '"text"', '42', 'null', 'true', '""')));
    add(1, withBody('empty-body', [422], () => fc.constant('')));
    add(
      1,
      withBody('malformed-json', [400], (v) =>
        fc.oneof(
          fc.integer({ min: 1, max: Math.max(1, text(v).length - 1) }).map((n) => text(v).slice(0, n)),
          fc.constantFrom('{', '{"title":}', "{'title':'x'}", '{"a":1,}', '{"a":NaN}', '{"a":undefined}', '{"a":1}/*c*/', '{"a":"\\x41"}', '\u0000', '{"a":"\u0001"}'),
        ),
      ),
    );
    add(1, withBody('duplicate-keys', [...op.success, 422], (v) => fc.constantFrom(...properties).map((name) => plus(v, name, '12345'))));
    add(
      1,
      withBody('invalid-utf8', [...op.success, 400, 422], (v) =>
        fc.constantFrom(...properties.filter((n) => n !== 'events')).map((name) => {
          const [before, after] = text({ ...v, [name]: 'MARK' }).split('MARK');
          return Buffer.concat([Buffer.from(before!), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xed, 0xa0, 0x80]), Buffer.from(after!)]);
        }),
      ),
    );
    add(
      2,
      parts.chain((p) => fc.constantFrom(...WRONG_CONTENT_TYPES).map((type) => makeCase(op, 'wrong-content-type', render(op, { ...p, headers: { ...p.headers, 'content-type': type } }), [415], true))),
    );
    add(1, parts.map((p) => makeCase(op, 'over-body-limit', render(op, p, { bodyText: text({ ...(p.body as object), name: 'x'.repeat(BODY_LIMIT) }) }), [413], false)));
    add(
      1,
      parts.chain((p) =>
        fc.constantFrom('k'.repeat(256), 'caf\u00e9', 'a\tb').map((idem) => makeCase(op, 'idempotency-key-invalid', render(op, { ...p, headers: { ...p.headers, 'idempotency-key': idem } }), [400], true)),
      ),
    );
    add(1, withBody('idempotency-key-reused', [...op.success, 409, 422], (v) => fc.constant(text(v)), { 'idempotency-key': `fuzz-reused-${op.template}` }));
  } else {
    add(1, parts.map((p) => makeCase(op, 'body-on-bodiless', render(op, p, { bodyText: '{"a":1}' }), op.method === 'GET' || op.method === 'DELETE' ? [400] : [...success, 400, 415], false)));
  }
  return fc.oneof(...variants);
}

/** Paths under /api/v1 that no route matches. */
const unknownPaths = fc
  .tuple(fc.constantFrom('/api/v1/', '/api/v1/campaigns/', '/api/v1/issues/', '/api/v1/webhooks/x/', '/api/v2/', '/api/v1/openapi.json/'), fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('GET', 'POST', 'DELETE'))
  .filter(([prefix, rest]) => !(prefix === '/api/v1/' && ['me', 'campaigns', 'events', 'webhooks', 'openapi.json', 'issues'].includes(rest)))
  .map(([prefix, rest, method]) => ({ op: 'unknown route', kind: 'unknown-path', req: { method, path: `${prefix}${encodeURIComponent(rest)}/zz`, headers: { 'x-api-key': keys.issues } }, expect: [404] }) as Case);

// ---- checking ---------------------------------------------------------------------------

function validatorFor(method: string, template: string, status: number, mediaType: string): ValidateFunction | null {
  const key = `${method} ${template} ${status} ${mediaType}`;
  if (!validators.has(key)) {
    const schema = responseSchemaFor(doc, method, template, status, mediaType);
    if (schema === null) return null;
    validators.set(key, ajv.compile(schema));
  }
  return validators.get(key)!;
}

let genericProblem: ValidateFunction | undefined;
/** The document's ProblemDetails, for the generic statuses an operation does not list. */
const problemValidator = () => (genericProblem ??= ajv.compile((doc.components as JsonSchema).schemas.ProblemDetails));

/** Every way the answer breaks the document or the promise for this kind of request (empty: conforms). */
function violations(c: Case, res: RawResponse): string[] {
  const found: string[] = [];
  const op = ops.find((o) => o.key === c.op);
  const allowed = op ? [...op.documented, ...GENERIC] : GENERIC;
  if (res.status >= 500) found.push(`a ${res.status}`);
  if (!allowed.includes(res.status)) found.push(`status ${res.status} is not documented for ${c.op}`);
  if (!c.expect.includes(res.status)) found.push(`status ${res.status}, expected ${c.expect.join(' or ')}`);
  if (res.headers['x-content-type-options'] !== 'nosniff') found.push('no X-Content-Type-Options: nosniff');
  const text = res.body.toString('utf8');
  const head = c.req.method === 'HEAD';
  if ((res.status === 204 || head) && res.body.length > 0) found.push(`a body on ${head ? 'HEAD' : '204'}`);

  if (res.status >= 400) {
    if (res.mediaType !== 'application/problem+json') found.push(`problem as '${res.mediaType}'`);
    if (!head) {
      let problem: any;
      try {
        problem = JSON.parse(text);
      } catch {
        found.push(`problem body is not JSON: ${text.slice(0, 200)}`);
      }
      if (problem !== undefined) {
        const documented = op?.documented.includes(res.status) ? validatorFor(op.method, op.template, res.status, 'application/problem+json') : problemValidator();
        if (documented && !documented(problem)) found.push(`problem body against the document: ${ajv.errorsText(documented.errors)}`);
        if (problem?.status !== res.status) found.push(`problem status ${problem?.status} ≠ ${res.status}`);
        if (typeof problem?.type !== 'string' || !problem.type.startsWith(PROBLEM_TYPE)) found.push(`problem type ${problem?.type}`);
        if (typeof problem?.title !== 'string' || problem.title === '') found.push('problem without a title');
        if (typeof problem?.traceId !== 'string' || problem.traceId === '') found.push('problem without a traceId');
        if (problem?.instance !== c.req.path.split('?')[0]) found.push(`problem instance ${problem?.instance}`);
        if (/\n\s+at |node_modules|select |insert into/i.test(text)) found.push('problem leaks internals');
      }
    }
  } else if (op && res.status !== 204 && !head) {
    const accept = c.req.headers.accept as string | undefined;
    const wanted = ACCEPTS.find(([a]) => a === accept)?.[1] ?? 'application/json';
    if (res.mediaType !== wanted) found.push(`success as '${res.mediaType}' for Accept ${accept ?? '(none)'}, expected ${wanted}`);
    const validate = validatorFor(op.method, op.template, res.status, res.mediaType);
    try {
      if (validate && !validate(JSON.parse(text))) found.push(`success body against the document: ${ajv.errorsText(validate.errors)}`);
    } catch (err) {
      found.push(`success body: ${(err as Error).message}`);
    }
  }

  // Headers: those the document lists for this answer, the rate-limit ones on every authenticated answer.
  if (res.status === 401 && !/^Bearer realm="preflight-api"/.test(String(res.headers['www-authenticate']))) found.push('401 without WWW-Authenticate');
  if (res.status === 405 && !res.headers.allow) found.push('405 without Allow');
  if (res.status === 429 || res.status === 503) if (!/^\d+$/.test(String(res.headers['retry-after']))) found.push(`${res.status} without Retry-After`);
  if (c.authenticated === true && res.status !== 401) {
    for (const h of RATE_LIMIT_HEADERS) if (res.headers[h] === undefined) found.push(`no ${h}`);
    if (res.headers['x-ratelimit-limit'] !== String(RATE_LIMIT)) found.push(`X-RateLimit-Limit ${res.headers['x-ratelimit-limit']}`);
    for (const h of ['x-ratelimit-remaining', 'x-ratelimit-reset']) if (!/^\d+$/.test(String(res.headers[h]))) found.push(`${h} is not an integer: ${res.headers[h]}`);
    if (!new RegExp(`q=${RATE_LIMIT};w=60`).test(String(res.headers['ratelimit-policy']))) found.push(`RateLimit-Policy ${res.headers['ratelimit-policy']}`);
  }
  if (op?.template === '/api/v1/openapi.json' && res.status === 200 && !res.headers['cache-control']) found.push('no Cache-Control');
  return found;
}

// ---- running ----------------------------------------------------------------------------

/** FUZZ_KEEP_GOING=1: list every kind of violation at the end instead of stopping at the first. */
const KEEP_GOING = process.env.FUZZ_KEEP_GOING === '1';
const kept = new Map<string, string>();
const tally = new Map<string, Map<number, number>>();
let sent = 0;

async function run(c: Case) {
  const req = { ...c.req };
  // Only a request that can delete takes one of the created endpoints; the others name the first.
  const deletes = c.kind === 'valid' || c.kind === 'unknown-query';
  if (req.path.includes(CREATED_WEBHOOK)) req.path = req.path.replace(CREATED_WEBHOOK, (deletes ? createdWebhooks.pop() : undefined) ?? ids.webhook[0]!);
  let res: RawResponse;
  try {
    res = await client.send(req);
  } catch (err) {
    throw new Error(`no answer (${(err as Error).message}) to ${describeCase(c)}`, { cause: err });
  }
  sent++;
  const row = tally.get(`${c.op} ${c.kind}`) ?? new Map<number, number>();
  row.set(res.status, (row.get(res.status) ?? 0) + 1);
  tally.set(`${c.op} ${c.kind}`, row);
  if (res.status === 201 && c.op === 'POST /api/v1/webhooks') createdWebhooks.push(JSON.parse(res.body.toString('utf8')).id);
  const problems = violations({ ...c, req }, res);
  if (problems.length > 0 && KEEP_GOING) {
    const what = `${c.op} [${c.kind}] ${problems.join('; ')}`.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>');
    if (!kept.has(what)) kept.set(what, `${describeCase(c).slice(0, 400)} → ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
    return;
  }
  if (problems.length > 0) throw new Error(`${problems.join('; ')}\n  request: ${describeCase(c)}\n  answer: ${res.status} ${res.mediaType} ${res.body.toString('utf8').slice(0, 500)}`);
}

describe('fuzzing the public API from its served OpenAPI document', () => {
  it('answers thousands of valid and hostile requests only as documented, never with a 5xx', async () => {
    expect(ops.length).toBeGreaterThanOrEqual(11);
    const arbitrary = fc.oneof(...ops.map((op) => ({ arbitrary: casesFor(op), weight: 3 })), { arbitrary: unknownPaths, weight: 1 });
    console.log(`fuzz-openapi: seed ${SEED}, ${RUNS} requests over ${ops.length} operations, ${WORKERS} at a time (replay: FUZZ_SEED=${SEED})`);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: WORKERS }, (_, w) =>
        fc.assert(
          fc.asyncProperty(arbitrary, (c) => run(c)),
          { seed: SEED + w, numRuns: Math.ceil(RUNS / WORKERS), endOnFailure: true },
        ),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const statuses = new Map<number, number>();
    for (const row of tally.values()) for (const [status, n] of row) statuses.set(status, (statuses.get(status) ?? 0) + n);
    const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
    console.log(`fuzz-openapi: ${sent} requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s): ${byStatus}`);
    if (process.env.FUZZ_REPORT) for (const [what, row] of [...tally].sort()) console.log(`  ${what}: ${[...row].map(([s, n]) => `${s}×${n}`).join(' ')}`);
    for (const [what, example] of kept) console.log(`VIOLATION ${what}\n    e.g. ${example}`);
    expect([...kept.keys()]).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(5_000);
    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
    // Every operation was exercised with valid requests, and those succeeded.
    for (const op of ops) expect([...(tally.get(`${op.key} valid`)?.keys() ?? [])].some((s) => s < 300), op.key).toBe(true);
  }, 240_000);
});
