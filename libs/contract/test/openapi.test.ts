import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  CreateIssueRequestSchema,
  CreateWebhookRequestSchema,
  EventEnvelopeSchema,
  IssuePageSchema,
  PublicIssueSchema,
  buildOpenApiDocument,
  responseSchemaFor,
} from '../src/index.ts';
// libs/http owns statuses and titles; the document's problem examples must agree with it.
import { ERROR_KINDS, problemType } from '../src/problems.ts';

type Json = Record<string, any>;

// ajv ships CommonJS with `exports.default`; unwrap whichever shape the loader hands us.
const Ajv2020 = (Ajv2020Module.default ?? Ajv2020Module) as typeof Ajv2020Module.default;
const addFormats = (addFormatsModule.default ?? addFormatsModule) as typeof addFormatsModule.default;

const doc = buildOpenApiDocument() as Json;
const schemas = doc.components.schemas as Record<string, Json>;

function newAjv() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** Resolves a `$ref` to a components.responses/parameters entry. */
function deref(node: Json): Json {
  if (typeof node.$ref !== 'string') return node;
  const [, , kind, name] = node.$ref.split('/');
  return doc.components[kind!][name!];
}

// ---------------------------------------------------------------------------------------------
// The contract, restated from public-api-v1.md so the document is checked against the spec,
// not against itself.

/** Section 4: method, path, scope (null: any valid key), and the 404 of section 7's table. */
const ENDPOINTS: { method: string; path: string; scope: string | null; notFound: boolean; body?: string; success: number }[] = [
  { method: 'get', path: '/api/v1/me', scope: null, notFound: false, success: 200 },
  { method: 'get', path: '/api/v1/campaigns', scope: 'read', notFound: false, success: 200 },
  { method: 'get', path: '/api/v1/campaigns/{id}/issues', scope: 'read', notFound: true, success: 200 },
  { method: 'post', path: '/api/v1/campaigns/{id}/issues', scope: 'write', notFound: true, body: 'CreateIssueRequest', success: 201 },
  { method: 'get', path: '/api/v1/issues/{id}', scope: 'read', notFound: true, success: 200 },
  { method: 'get', path: '/api/v1/events', scope: 'read', notFound: false, success: 200 },
  { method: 'get', path: '/api/v1/events/{eventKey}/sample', scope: 'read', notFound: true, success: 200 },
  { method: 'get', path: '/api/v1/webhooks', scope: 'webhooks', notFound: false, success: 200 },
  { method: 'post', path: '/api/v1/webhooks', scope: 'webhooks', notFound: false, body: 'CreateWebhookRequest', success: 201 },
  { method: 'delete', path: '/api/v1/webhooks/{id}', scope: 'webhooks', notFound: true, success: 204 },
];

/** Section 2.1. */
const ENUMS: Record<string, string[]> = {
  CampaignStatus: ['Draft', 'Active', 'Paused', 'Closed'],
  IssueStatus: ['New', 'Acknowledged', 'InProgress', 'Fixed', 'RetestRequested', 'RetestFixed', 'RetestFailed', 'Closed', 'WontFix', 'Duplicate'],
  IssueSeverity: ['Critical', 'High', 'Medium', 'Low', 'Trivial'],
  IssueType: ['Bug', 'UxFeedback', 'ContentError', 'PerformanceIssue', 'AccessibilityIssue', 'Other'],
  Scope: ['read', 'write', 'webhooks'],
  ReadinessLevel: ['ReadyToLaunch', 'ReadyWithIssues', 'AtRisk', 'DoNotLaunch'],
  Gate: ['cleared', 'awaiting-signoff', 'not-cleared'],
};

const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

const op = (method: string, path: string): Json => doc.paths[path]?.[method];

// Sample bodies built from the spec's field tables (section 2).
const ID = '6f1c2b8e-3d4a-4f5b-9c6d-7e8f9a0b1c2d';
const ID2 = '0b9f2f4e-5d7c-4c1e-9a51-3f8a2f1b6c7d';
const AT = '2025-05-01T12:34:56.789Z';

const summary = {
  id: ID,
  seqNumber: 7,
  title: 'Checkout button does nothing',
  type: 'Bug',
  severity: 'Critical',
  status: 'New',
  assigneeName: null,
  pageUrl: 'https://shop.example.com/checkout',
  createdAt: AT,
};
const issue = {
  id: ID,
  seqNumber: 7,
  campaignId: ID2,
  campaignName: 'Spring launch',
  siteId: ID2,
  siteName: 'Shop',
  type: 'Bug',
  severity: 'High',
  status: 'Duplicate',
  title: 'Checkout button does nothing',
  description: null,
  stepsToReproduce: null,
  expectedBehavior: null,
  actualBehavior: null,
  pageUrl: null,
  pageTitle: null,
  browserName: 'Firefox',
  browserVersion: '138',
  operatingSystem: null,
  deviceType: null,
  screenResolution: null,
  screenshotUrl: null,
  assigneeName: 'Dana',
  testerEmail: 'tester@example.com',
  duplicateOfId: ID2,
  duplicateOfSeqNumber: 3,
  createdAt: AT,
  updatedAt: AT,
  history: [
    { from: null, to: 'New', reason: null, occurredAt: AT },
    { from: 'New', to: 'Duplicate', reason: 'Same as #3', occurredAt: AT },
  ],
};
const SAMPLES: { method: string; path: string; status: number; body: Json | unknown[]; required: string }[] = [
  {
    method: 'GET',
    path: '/api/v1/me',
    status: 200,
    body: { organization: { id: ID, name: 'Acme' }, key: { id: ID2, name: 'CI', scopes: ['read', 'write'] } },
    required: 'organization',
  },
  {
    method: 'GET',
    path: '/api/v1/campaigns',
    status: 200,
    body: [
      { id: ID, name: 'Spring launch', status: 'Active', siteId: ID2, siteName: 'Shop', readinessLevel: 'AtRisk', gate: 'awaiting-signoff', createdAt: AT },
      { id: ID2, name: null, status: null, siteId: ID, siteName: null, readinessLevel: null, gate: null, createdAt: AT },
    ],
    required: 'gate',
  },
  {
    method: 'GET',
    path: `/api/v1/campaigns/${ID}/issues?page=1`,
    status: 200,
    body: { items: [summary], page: 1, pageSize: 50, total: 1, hasMore: false },
    required: 'hasMore',
  },
  { method: 'POST', path: `/api/v1/campaigns/${ID}/issues`, status: 201, body: { id: ID, seqNumber: 8 }, required: 'seqNumber' },
  { method: 'GET', path: `/api/v1/issues/${ID}`, status: 200, body: issue, required: 'history' },
  {
    method: 'GET',
    path: '/api/v1/events/IssueCreated/sample',
    status: 200,
    body: { id: ID, eventType: 'IssueCreated', occurredAt: AT, data: { issueId: ID2, campaignId: ID, title: 'x', severity: 'High' } },
    required: 'data',
  },
  {
    method: 'GET',
    path: '/api/v1/webhooks',
    status: 200,
    body: [{ id: ID, name: null, url: 'https://hooks.example.com/preflight', events: [], isEnabled: true, source: 'api', createdAt: AT }],
    required: 'isEnabled',
  },
  {
    method: 'POST',
    path: '/api/v1/webhooks',
    status: 201,
    body: { id: ID, url: 'https://hooks.example.com/preflight', events: ['IssueCreated'], secret: 'c2VjcmV0LXNpZ25pbmcta2V5' },
    required: 'secret',
  },
  {
    method: 'GET',
    path: '/api/v1/issues/not-a-uuid',
    status: 404,
    body: { type: problemType('not_found'), title: 'Not found.', status: 404, detail: "No issue with id 'not-a-uuid' was found.", instance: '/api/v1/issues/not-a-uuid', traceId: null },
    required: 'traceId',
  },
  {
    method: 'POST',
    path: '/api/v1/webhooks',
    status: 422,
    body: {
      type: problemType('validation'),
      title: 'Validation failed.',
      status: 422,
      detail: 'One or more fields are invalid.',
      instance: '/api/v1/webhooks',
      traceId: 'abc',
      errors: { url: ['Is required.'] },
      extension: { allowed: true },
    },
    required: 'errors',
  },
];

// ---------------------------------------------------------------------------------------------

describe('OpenAPI document: shape', () => {
  it('is OpenAPI 3.1 with the expected info, servers and JSON-serialisable, deterministic content', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Preflight public API', version: 'v1' });
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    expect(buildOpenApiDocument()).toEqual(doc);
  });

  it('compiles every component schema with ajv (JSON Schema 2020-12, strict)', () => {
    const ajv = newAjv();
    const base = 'https://preflight.dev/schemas/components';
    ajv.addSchema({ $id: base, $defs: JSON.parse(JSON.stringify(schemas).replaceAll('#/components/schemas/', '#/$defs/')) });
    for (const name of Object.keys(schemas)) {
      let validate: unknown;
      expect(() => (validate = ajv.getSchema(`${base}#/$defs/${name}`)), name).not.toThrow();
      expect(validate, name).toBeTypeOf('function');
    }
  });

  it('resolves every $ref in the document', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const r of refs) {
      const path = r.slice('"$ref":"#/'.length, -1).split('/');
      let node: any = doc;
      for (const part of path) node = node?.[part];
      expect(node, r).toBeDefined();
    }
  });

  it('passes redocly lint with the repository configuration', () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
    const run = spawnSync(process.execPath, [join(root, 'scripts/lint-openapi.mjs')], { cwd: root, encoding: 'utf8' });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(`${run.stdout}${run.stderr}`).toMatch(/Your API description is valid/);
  }, 60_000);

  it('uses 3.1 nullability: type arrays or anyOf with null, never `nullable`', () => {
    expect(JSON.stringify(doc)).not.toContain('"nullable"');
    expect(schemas.PublicCampaign!.properties.name.type).toEqual(['string', 'null']);
    expect(schemas.PublicIssue!.properties.duplicateOfSeqNumber).toMatchObject({ type: ['integer', 'null'], format: 'int32' });
    expect(schemas.PublicIssue!.properties.history.type).toEqual(['array', 'null']);
    expect(schemas.PublicCampaign!.properties.status).toEqual({ anyOf: [{ $ref: '#/components/schemas/CampaignStatus' }, { type: 'null' }] });
  });
});

describe('OpenAPI document: operations (spec section 4)', () => {
  it('documents exactly the spec paths plus /api/v1/openapi.json', () => {
    const documented = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`));
    const expected = [...ENDPOINTS.map((e) => `${e.method} ${e.path}`), 'get /api/v1/openapi.json'];
    expect(documented.sort()).toEqual(expected.sort());
  });

  it.each(ENDPOINTS)('$method $path: operationId, tag, summary, scope, security', (e) => {
    const o = op(e.method, e.path);
    expect(o.operationId).toMatch(/^[a-z][A-Za-z]+$/);
    expect(o.tags).toHaveLength(1);
    expect(doc.tags.map((t: Json) => t.name)).toContain(o.tags[0]);
    expect(o.summary).toBeTruthy();
    expect(o['x-required-scope']).toBe(e.scope);
    expect(o.description).toContain(e.scope === null ? 'Any valid API key' : `Requires scope \`${e.scope}\``);
    // Either header authenticates; the scope is the role in both requirements.
    expect(o.security).toEqual([{ BearerApiKey: e.scope ? [e.scope] : [] }, { HeaderApiKey: e.scope ? [e.scope] : [] }]);
  });

  it('has unique operationIds', () => {
    const ids = Object.values(doc.paths as Record<string, Json>).flatMap((item) => Object.values(item).map((o: Json) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('serves /api/v1/openapi.json without security', () => {
    expect(op('get', '/api/v1/openapi.json').security).toEqual([]);
  });

  it('declares both security schemes and accepts either by default', () => {
    expect(doc.components.securitySchemes.BearerApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.HeaderApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(doc.security).toEqual([{ BearerApiKey: [] }, { HeaderApiKey: [] }]);
  });

  it.each(ENDPOINTS)('$method $path: success status and media types', (e) => {
    const responses = op(e.method, e.path).responses as Record<string, Json>;
    const success = Object.keys(responses).filter((s) => s.startsWith('2'));
    expect(success).toEqual([String(e.success)]);
    const response = responses[String(e.success)]!;
    if (e.success === 204) expect(response.content).toBeUndefined();
    else expect(Object.keys(response.content)).toEqual(['application/json', 'text/json', 'text/plain']);
    for (const h of RATE_LIMIT_HEADERS) expect(response.headers[h], h).toEqual({ $ref: `#/components/headers/${h}` });
  });

  it.each(ENDPOINTS.filter((e) => e.body))('$method $path: request body in the three JSON media types', (e) => {
    const body = op(e.method, e.path).requestBody;
    expect(body.required).toBe(true);
    expect(Object.keys(body.content)).toEqual(['application/json', 'text/json', 'application/*+json']);
    for (const media of Object.values(body.content) as Json[]) expect(media.schema).toEqual({ $ref: `#/components/schemas/${e.body}` });
  });
});

describe('OpenAPI document: problems (spec section 7)', () => {
  it.each(ENDPOINTS)('$method $path: documents 401, 403, 404, 422 and 429 as spec 7 says', (e) => {
    const responses = op(e.method, e.path).responses as Record<string, Json>;
    expect(responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    expect(responses['503']).toEqual({ $ref: '#/components/responses/ServiceUnavailable' });
    if (e.scope === null) expect(responses['403']).toBeUndefined();
    else expect(responses['403']).toEqual({ $ref: '#/components/responses/Forbidden' });
    if (e.notFound) expect(responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    else expect(responses['404']).toBeUndefined();
    if (e.body) {
      expect(responses['422']).toEqual({ $ref: '#/components/responses/ValidationFailed' });
      expect(responses['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' });
      expect(responses['413']).toEqual({ $ref: '#/components/responses/PayloadTooLarge' });
      expect(responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' }); // malformed JSON
    } else {
      expect(responses['422']).toBeUndefined();
    }
    const hasQuery = (op(e.method, e.path).parameters ?? []).some((p: Json) => deref(p).in === 'query');
    if (hasQuery) expect(responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
  });

  it('answers every problem as application/problem+json with ProblemDetails or ValidationProblemDetails', () => {
    const responses = doc.components.responses as Record<string, Json>;
    for (const [name, response] of Object.entries(responses)) {
      expect(Object.keys(response.content), name).toEqual(['application/problem+json']);
      const expected = name === 'ValidationFailed' ? 'ValidationProblemDetails' : 'ProblemDetails';
      expect(response.content['application/problem+json'].schema, name).toEqual({ $ref: `#/components/schemas/${expected}` });
    }
  });

  it('agrees with libs/http on status, title and type URI in every example', () => {
    const ajv = newAjv();
    for (const [name, response] of Object.entries(doc.components.responses as Record<string, Json>)) {
      const example = response.content['application/problem+json'].example;
      const kind = Object.entries(ERROR_KINDS).find(([code]) => problemType(code as keyof typeof ERROR_KINDS) === example.type);
      expect(kind, `${name}: ${example.type}`).toBeDefined();
      expect({ status: example.status, title: example.title }, name).toEqual(kind![1]);
      const schema = { ...response.content['application/problem+json'].schema, $defs: schemas };
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('#/components/schemas/', '#/$defs/')));
      expect(validate(example), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('gives 403 and 429 the titles of spec 7, and 429 a required Retry-After', () => {
    const responses = doc.components.responses as Record<string, Json>;
    expect(responses.Forbidden!.content['application/problem+json'].example.title).toBe('Access denied.');
    expect(responses.TooManyRequests!.content['application/problem+json'].example.title).toBe('Too many requests.');
    expect(responses.TooManyRequests!.headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(doc.components.headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } });
  });

  it('carries the rate-limit headers on every problem but 401', () => {
    for (const [name, response] of Object.entries(doc.components.responses as Record<string, Json>)) {
      for (const h of RATE_LIMIT_HEADERS) {
        if (name === 'Unauthorized') expect(response.headers?.[h], `${name} ${h}`).toBeUndefined();
        else expect(response.headers?.[h], `${name} ${h}`).toEqual({ $ref: `#/components/headers/${h}` });
      }
    }
    for (const h of [...RATE_LIMIT_HEADERS, 'Retry-After']) expect(doc.components.headers[h], h).toMatchObject({ description: expect.any(String) });
  });

  it('describes problem bodies per spec 7.2/7.3: nullable fields, extra properties allowed, errors map', () => {
    const problem = schemas.ProblemDetails!;
    for (const field of ['type', 'title', 'detail', 'instance', 'traceId']) expect(problem.properties[field].type, field).toEqual(['string', 'null']);
    expect(problem.properties.status.type).toEqual(['integer', 'null']);
    expect(problem.additionalProperties).not.toBe(false);
    const validation = schemas.ValidationProblemDetails!;
    expect(validation.required).toContain('errors');
    expect(validation.properties.errors).toMatchObject({ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } });
    expect(validation.additionalProperties).not.toBe(false);
  });
});

describe('OpenAPI document: schemas and parameters (spec section 2)', () => {
  it.each(Object.entries(ENUMS))('enum %s is exactly spec 2.1', (name, values) => {
    expect(schemas[name]).toMatchObject({ type: 'string', enum: values });
    expect(schemas[name]!.enum).toEqual(values);
  });

  it('types int32, uuid and date-time fields as the spec does', () => {
    const p = (schema: string, field: string) => schemas[schema]!.properties[field];
    for (const [schema, field] of [
      ['PublicIssueSummary', 'seqNumber'],
      ['PublicIssue', 'seqNumber'],
      ['IssuePage', 'page'],
      ['IssuePage', 'pageSize'],
      ['IssuePage', 'total'],
      ['CreateIssueResponse', 'seqNumber'],
    ] as const) expect(p(schema, field), `${schema}.${field}`).toEqual(expect.objectContaining({ type: 'integer', format: 'int32' }));
    for (const [schema, field] of [
      ['PublicCampaign', 'id'],
      ['PublicCampaign', 'siteId'],
      ['PublicIssue', 'campaignId'],
      ['PublicWebhook', 'id'],
      ['CreateWebhookResponse', 'id'],
      ['EventEnvelope', 'id'],
    ] as const) expect(p(schema, field), `${schema}.${field}`).toEqual(expect.objectContaining({ type: 'string', format: 'uuid' }));
    expect(p('PublicIssue', 'duplicateOfId')).toEqual({ type: ['string', 'null'], format: 'uuid' });
    for (const [schema, field] of [
      ['PublicCampaign', 'createdAt'],
      ['PublicIssue', 'updatedAt'],
      ['IssueHistoryEntry', 'occurredAt'],
      ['EventEnvelope', 'occurredAt'],
    ] as const) expect(p(schema, field), `${schema}.${field}`).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('lists every field of spec 2.4 on PublicIssue, all required (present, maybe null)', () => {
    const fields = Object.keys(PublicIssueSchema.shape);
    expect(Object.keys(schemas.PublicIssue!.properties)).toEqual(fields);
    expect(schemas.PublicIssue!.required).toEqual(fields);
    expect(fields).toHaveLength(29);
  });

  it('describes CreateIssueRequest as spec 2.7 plus the decided rules', () => {
    const s = schemas.CreateIssueRequest!;
    expect(Object.keys(s.properties)).toEqual(['title', 'description', 'severity', 'type', 'pageUrl']);
    expect(s.additionalProperties).toBe(false);
    expect(s.required).toEqual(['title', 'severity', 'type']);
    expect(s.properties.severity).toEqual({ $ref: '#/components/schemas/IssueSeverity' });
    expect(s.properties.type).toEqual({ $ref: '#/components/schemas/IssueType' });
    expect(s.properties.title).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
    expect(s.properties.description).toMatchObject({ type: ['string', 'null'], maxLength: 10_000 });
    expect(s.properties.pageUrl).toMatchObject({ type: ['string', 'null'], maxLength: 2048, format: 'uri' });
  });

  it('describes CreateWebhookRequest as spec 2.10 with url required', () => {
    const s = schemas.CreateWebhookRequest!;
    expect(Object.keys(s.properties)).toEqual(['url', 'events', 'name']);
    expect(s.required).toEqual(['url']);
    expect(s.properties.events).toMatchObject({ type: ['array', 'null'], items: { type: 'string' } });
    expect(s.properties.name).toMatchObject({ type: ['string', 'null'], minLength: 1, maxLength: 200 });
  });

  it('declares the path and query parameters of spec 4', () => {
    const params = (method: string, path: string) => (op(method, path).parameters ?? []).map(deref);
    for (const e of ENDPOINTS.filter((x) => x.path.includes('{id}'))) {
      expect(params(e.method, e.path), `${e.method} ${e.path}`).toContainEqual(
        expect.objectContaining({ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }),
      );
    }
    expect(params('get', '/api/v1/events/{eventKey}/sample')).toEqual([expect.objectContaining({ name: 'eventKey', in: 'path', required: true, schema: { type: 'string' } })]);
    expect(params('get', '/api/v1/campaigns')).toEqual([
      expect.objectContaining({ name: 'status', in: 'query', required: false, schema: { $ref: '#/components/schemas/CampaignStatus' } }),
    ]);
    const list = Object.fromEntries(params('get', '/api/v1/campaigns/{id}/issues').map((p: Json) => [p.name, p]));
    expect(list.status.schema).toEqual({ $ref: '#/components/schemas/IssueStatus' });
    expect(list.severity.schema).toEqual({ $ref: '#/components/schemas/IssueSeverity' });
    expect(list.page.schema).toEqual({ type: 'integer', format: 'int32', default: 1, minimum: 1, maximum: 2_147_483_647 });
    expect(list.pageSize.schema).toEqual({ type: 'integer', format: 'int32', default: 50, minimum: 1, maximum: 200 });
    for (const p of Object.values(list) as Json[]) if (p.in === 'query') expect(p.required).toBe(false);
  });

  it('describes each emitted event as an OpenAPI webhook carrying the envelope', () => {
    expect(Object.keys(doc.webhooks)).toEqual([
      'CampaignLaunched',
      'CampaignClosed',
      'ReportSealed',
      'TesterCompleted',
      'IssueCreated',
      'IssueUpdated',
      'IssueClosed',
      'RetestRequested',
      'RetestCompleted',
    ]);
    const post = doc.webhooks.IssueCreated.post;
    expect(post.requestBody.content['application/json'].schema.allOf[0]).toEqual({ $ref: '#/components/schemas/EventEnvelope' });
    expect(post.parameters.map((p: Json) => p.name)).toEqual(['X-Service-Event', 'X-Service-Delivery', 'X-Service-Signature']);
  });
});

describe('responseSchemaFor: validating bodies against the document', () => {
  const ajv = newAjv();

  it.each(SAMPLES)('$method $path $status: a body built to the spec validates; one missing $required does not', (s) => {
    const schema = responseSchemaFor(doc, s.method, s.path, s.status);
    expect(schema).not.toBeNull();
    const validate = ajv.compile(schema!);
    expect(validate(s.body), ajv.errorsText(validate.errors)).toBe(true);

    const broken = structuredClone(s.body) as any;
    delete (Array.isArray(broken) ? broken[0] : broken)[s.required];
    expect(validate(broken)).toBe(false);
  });

  it('rejects wrong enum values, wrong formats and unlisted properties in responses', () => {
    const validate = ajv.compile(responseSchemaFor(doc, 'GET', `/api/v1/issues/${ID}`, 200)!);
    expect(validate({ ...issue, severity: 'Blocker' })).toBe(false);
    expect(validate({ ...issue, createdAt: '1 May 2025' })).toBe(false);
    expect(validate({ ...issue, campaignId: 'nope' })).toBe(false);
    expect(validate({ ...issue, seqNumber: 2 ** 31 })).toBe(false);
    expect(validate({ ...issue, orgId: ID })).toBe(false);
    expect(validate({ ...issue, history: null })).toBe(true);
  });

  it('agrees with the zod schemas the services use', () => {
    const page = { items: [summary], page: 1, pageSize: 50, total: 1, hasMore: false };
    expect(IssuePageSchema.safeParse(page).success).toBe(true);
    expect(PublicIssueSchema.safeParse(issue).success).toBe(true);
    const envelope = SAMPLES.find((s) => s.path.endsWith('/sample'))!.body;
    expect(EventEnvelopeSchema.safeParse(envelope).success).toBe(true);
  });

  it('validates request bodies: CreateIssueRequest refuses extra properties and needs title, severity, type', () => {
    const validate = ajv.compile({ $ref: '#/$defs/CreateIssueRequest', $defs: JSON.parse(JSON.stringify(schemas).replaceAll('#/components/schemas/', '#/$defs/')) });
    const ok = { title: 'Broken link', severity: 'Low', type: 'ContentError', pageUrl: 'https://example.com/a', description: null };
    expect(validate(ok), ajv.errorsText(validate.errors)).toBe(true);
    expect(CreateIssueRequestSchema.safeParse(ok).success).toBe(true);
    for (const field of ['title', 'severity', 'type']) {
      const { [field as keyof typeof ok]: _omitted, ...missing } = ok;
      expect(validate(missing), field).toBe(false);
      expect(CreateIssueRequestSchema.safeParse(missing).success, field).toBe(false);
    }
    expect(validate({ ...ok, priority: 'P1' })).toBe(false);
    expect(CreateIssueRequestSchema.safeParse({ ...ok, priority: 'P1' }).success).toBe(false);
    expect(validate({ ...ok, severity: 'Blocker' })).toBe(false);
  });

  it('returns null for a documented response without a body and throws for undocumented ones', () => {
    expect(responseSchemaFor(doc, 'DELETE', `/api/v1/webhooks/${ID}`, 204)).toBeNull();
    expect(() => responseSchemaFor(doc, 'PUT', '/api/v1/webhooks', 200)).toThrow(/no operation/);
    expect(() => responseSchemaFor(doc, 'GET', '/api/v1/me', 404)).toThrow(/no 404/);
    expect(() => responseSchemaFor(doc, 'GET', '/api/v1/me', 200, 'application/xml')).toThrow(/not documented/);
    expect(responseSchemaFor(doc, 'GET', '/api/v1/me', 200, 'text/plain; charset=utf-8')).toMatchObject({ $ref: '#/$defs/ApiKeyContext' });
    expect(responseSchemaFor(doc, 'GET', '/api/v1/campaigns/{id}/issues', 403)).toMatchObject({ $ref: '#/$defs/ProblemDetails' });
  });
});

describe('CreateWebhookRequestSchema (decisions where spec 2.10 is silent)', () => {
  it('requires an absolute http(s) url', () => {
    expect(CreateWebhookRequestSchema.safeParse({}).success).toBe(false);
    expect(CreateWebhookRequestSchema.safeParse({ url: null }).success).toBe(false);
    expect(CreateWebhookRequestSchema.safeParse({ url: 'ftp://example.com/x' }).success).toBe(false);
    expect(CreateWebhookRequestSchema.safeParse({ url: '/relative' }).success).toBe(false);
    const parsed = CreateWebhookRequestSchema.parse({ url: ' https://hooks.example.com/a ' });
    expect(parsed).toEqual({ url: 'https://hooks.example.com/a', events: [], name: null });
  });

  it('treats events omitted, null or empty as every event, collapses duplicates, refuses blanks', () => {
    const url = 'https://hooks.example.com/a';
    expect(CreateWebhookRequestSchema.parse({ url, events: null }).events).toEqual([]);
    expect(CreateWebhookRequestSchema.parse({ url, events: [] }).events).toEqual([]);
    expect(CreateWebhookRequestSchema.parse({ url, events: ['IssueCreated', 'IssueCreated', 'TesterInvited'] }).events).toEqual([
      'IssueCreated',
      'TesterInvited',
    ]);
    expect(CreateWebhookRequestSchema.safeParse({ url, events: [''] }).success).toBe(false);
    expect(CreateWebhookRequestSchema.safeParse({ url, events: 'IssueCreated' }).success).toBe(false);
  });

  it('accepts an optional name of 1–200 characters and refuses unknown properties', () => {
    const url = 'https://hooks.example.com/a';
    expect(CreateWebhookRequestSchema.parse({ url, name: ' CI ' }).name).toBe('CI');
    expect(CreateWebhookRequestSchema.parse({ url, name: null }).name).toBeNull();
    expect(CreateWebhookRequestSchema.safeParse({ url, name: '' }).success).toBe(false);
    expect(CreateWebhookRequestSchema.safeParse({ url, name: 'x'.repeat(201) }).success).toBe(false);
    expect(CreateWebhookRequestSchema.safeParse({ url, event: ['IssueCreated'] }).success).toBe(false);
  });
});
