import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { responseSchemaFor } from '@preflight/contract';
import { call, freshTenant, type ApiResponse } from '../support/client.ts';

// Contract tests: every response the running system gives on these calls — successes and
// problems alike — must validate against the OpenAPI document the gateway itself serves.
const sys = inject('system');
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
let doc: Record<string, unknown>;

function expectConforms(method: string, path: string, res: ApiResponse) {
  const schema = responseSchemaFor(doc, method, path, res.status, res.headers.get('content-type') ?? undefined);
  if (schema === null) {
    expect(res.text).toBe('');
    return;
  }
  const validate = ajv.compile(schema);
  const ok = validate(JSON.parse(res.text));
  expect(ok, `${method} ${path} → ${res.status}: ${ajv.errorsText(validate.errors)}\n${res.text.slice(0, 500)}`).toBe(true);
}

beforeAll(async () => {
  const res = await call(sys, 'GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  expect(doc.openapi).toMatch(/^3\.1\./);
});

describe('responses conform to /api/v1/openapi.json', () => {
  it('for every public endpoint, success and error alike', async () => {
    const t = await freshTenant(sys, { all: ['read', 'write', 'webhooks'], none: [] });
    const key = t.keys.all!.key;
    const created = await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, {
      apiKey: key,
      body: { title: 'Contract check', description: null, severity: 'High', type: 'UxFeedback', pageUrl: 'https://shop.example.com/a' },
    });
    await t.admin.setIssueStatus(created.body.id, { to: 'Acknowledged', reason: 'Seen' });
    const missing = '00000000-0000-4000-8000-000000000000';
    const calls: Array<[string, string, { apiKey?: string; body?: unknown; headers?: Record<string, string> }]> = [
      ['GET', '/api/v1/me', { apiKey: key }],
      ['GET', '/api/v1/campaigns', { apiKey: key }],
      ['GET', '/api/v1/campaigns', { apiKey: key, headers: { accept: 'text/json' } }],
      ['GET', '/api/v1/campaigns?status=Bogus', { apiKey: key }],
      ['GET', '/api/v1/campaigns', {}],
      ['GET', '/api/v1/campaigns', { apiKey: t.keys.none!.key }],
      ['GET', `/api/v1/campaigns/${t.campaign.id}/issues?pageSize=1`, { apiKey: key }],
      ['GET', `/api/v1/campaigns/${missing}/issues`, { apiKey: key }],
      ['GET', `/api/v1/campaigns/${t.campaign.id}/issues?pageSize=500`, { apiKey: key }],
      ['POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: key, body: { title: 'Another', severity: 'Low', type: 'Bug' } }],
      ['POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: key, body: { severity: 'Nope' } }],
      ['POST', `/api/v1/campaigns/${missing}/issues`, { apiKey: key, body: { title: 'x', severity: 'Low', type: 'Bug' } }],
      ['GET', `/api/v1/issues/${created.body.id}`, { apiKey: key }],
      ['GET', `/api/v1/issues/${missing}`, { apiKey: key }],
    ];
    const statuses: number[] = [];
    for (const [method, path, opts] of calls) {
      const res = await call(sys, method, path, opts);
      statuses.push(res.status);
      expectConforms(method, path, res);
    }
    expect(statuses).toEqual([200, 200, 200, 400, 401, 403, 200, 404, 400, 201, 422, 404, 200, 404]);
  });
});
