import { describe, expect, inject, it } from 'vitest';
import { call, freshTenant } from '../support/client.ts';
import { expectProblem } from './problems.ts';

// Issue 22, finding 7: two identical POSTs made issues #12 and #13. With an Idempotency-Key a
// retry answers the first answer and files nothing (docs/api.md, "Idempotent retries").
const sys = inject('system');

const issue = { title: 'Checkout button overlaps the footer', severity: 'High', type: 'Bug' };
let n = 0;
const newKey = () => `e2e-${Date.now()}-${++n}`;

async function issuesOf(campaignId: string, apiKey: string) {
  const list = await call(sys, 'GET', `/api/v1/campaigns/${campaignId}/issues?pageSize=200`, { apiKey });
  expect(list.status).toBe(200);
  return list.body as { total: number; items: Array<{ id: string; seqNumber: number }> };
}

describe('POST /api/v1/campaigns/{id}/issues with an Idempotency-Key', () => {
  it('files one issue for two identical POSTs, answering the same id and seqNumber twice', async () => {
    const t = await freshTenant(sys, { rw: ['read', 'write'] });
    const key = newKey();
    const file = () => call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: t.keys.rw!.key, body: issue, headers: { 'idempotency-key': key } });
    const first = await file();
    expect(first.status, first.text).toBe(201);
    const second = await file();
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    const list = await issuesOf(t.campaign.id, t.keys.rw!.key);
    expect(list.total).toBe(1);
    expect(list.items[0]).toMatchObject({ id: first.body.id, seqNumber: first.body.seqNumber });
  });

  it('answers 422 for the same key with another body, filing nothing more', async () => {
    const t = await freshTenant(sys, { rw: ['read', 'write'] });
    const key = newKey();
    const path = `/api/v1/campaigns/${t.campaign.id}/issues`;
    expect((await call(sys, 'POST', path, { apiKey: t.keys.rw!.key, body: issue, headers: { 'idempotency-key': key } })).status).toBe(201);
    const other = await call(sys, 'POST', path, { apiKey: t.keys.rw!.key, body: { ...issue, severity: 'Low' }, headers: { 'idempotency-key': key } });
    const problem = expectProblem(other, 422);
    expect(problem.errors['Idempotency-Key']).toHaveLength(1);
    expect((await issuesOf(t.campaign.id, t.keys.rw!.key)).total).toBe(1);
  });

  it('files one issue for concurrent duplicates, every one answered with it', async () => {
    const t = await freshTenant(sys, { rw: ['read', 'write'] });
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: t.keys.rw!.key, body: issue, headers: { 'idempotency-key': key } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
    const list = await issuesOf(t.campaign.id, t.keys.rw!.key);
    expect(list.total).toBe(1);
    expect(list.items[0]!.seqNumber).toBe(answers[0]!.body.seqNumber);
  });

  it('still files one issue per POST without the header, and refuses an invalid key with 400', async () => {
    const t = await freshTenant(sys, { rw: ['read', 'write'] });
    const path = `/api/v1/campaigns/${t.campaign.id}/issues`;
    for (let i = 0; i < 2; i++) expect((await call(sys, 'POST', path, { apiKey: t.keys.rw!.key, body: issue })).status).toBe(201);
    const invalid = await call(sys, 'POST', path, { apiKey: t.keys.rw!.key, body: issue, headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(expectProblem(invalid, 400).errors['Idempotency-Key']).toHaveLength(1);
    expect((await issuesOf(t.campaign.id, t.keys.rw!.key)).total).toBe(2);
  });
});

describe('admin POSTs with an Idempotency-Key', () => {
  it('files one issue through the admin API for a retried create', async () => {
    const t = await freshTenant(sys, { r: ['read'] });
    const key = newKey();
    const file = () => call(sys, 'POST', `/admin/v1/campaigns/${t.campaign.id}/issues`, { token: sys.adminToken, body: issue, headers: { 'idempotency-key': key } });
    const first = await file();
    expect(first.status, first.text).toBe(201);
    const second = await file();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect((await issuesOf(t.campaign.id, t.keys.r!.key)).total).toBe(1);
  });
});

describe('the served OpenAPI document', () => {
  it('offers the optional Idempotency-Key header, the replay marker and the 409 on every POST', async () => {
    const doc = (await call(sys, 'GET', '/api/v1/openapi.json')).body;
    const posts = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) => (item.post ? [item.post] : []));
    expect(posts.length).toBeGreaterThan(0);
    for (const op of posts) {
      expect(op.parameters, op.operationId).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      const success = Object.entries(op.responses as Record<string, any>).find(([status]) => status.startsWith('2'))![1];
      expect(success.headers['Idempotent-Replayed'], op.operationId).toBeDefined();
      expect(op.responses['409'], op.operationId).toEqual({ $ref: '#/components/responses/Conflict' });
    }
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: false, schema: { maxLength: 255 } });
  });
});
