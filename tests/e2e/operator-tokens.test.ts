import { describe, expect, inject, it } from 'vitest';
import { admin, call } from '../support/client.ts';
import { expectProblem } from './problems.ts';

// Operator tokens and the audit log (admin-api-v1.md, "Operator tokens and the audit log").
const sys = inject('system');
const asAdmin = { token: sys.adminToken };

async function mint(name: string, scopes: string[]): Promise<{ id: string; token: string }> {
  const res = await call(sys, 'POST', '/admin/v1/operator-tokens', { ...asAdmin, body: { name, scopes } });
  expect(res.status, res.text).toBe(201);
  expect(res.body.token).toMatch(/^opr_/);
  return res.body;
}

/** The entry with this trace id, paging back (the shared system's other files write too) to entries older than `since`. */
async function findEntry(traceId: string, token: string, since: number): Promise<Record<string, any> | undefined> {
  let before = '';
  for (;;) {
    const log = await call(sys, 'GET', `/admin/v1/audit-log?limit=200${before}`, { token });
    expect(log.status).toBe(200);
    const page = log.body as Array<Record<string, any>>;
    const found = page.find((e) => e.traceId === traceId);
    if (found || page.length < 200 || Date.parse(page.at(-1)!.at) < since) return found;
    before = `&before=${encodeURIComponent(page.at(-1)!.at)}`;
  }
}

describe('operator tokens', () => {
  it('lets a read token read and refuses it every write; a write token writes, and the write is in the audit log', async () => {
    const reader = await mint(`e2e reader ${Date.now()}`, ['admin:read']);
    const writer = await mint(`e2e writer ${Date.now()}`, ['admin:read', 'admin:write']);
    const org = await admin(sys).createOrg('Operator tokens e2e');

    // Reads, across the gateway's own endpoints and a forwarded one.
    expect((await call(sys, 'GET', '/admin/v1/organizations', { token: reader.token })).status).toBe(200);
    expect((await call(sys, 'GET', `/admin/v1/organizations/${org.id}/sites`, { token: reader.token })).status).toBe(200);
    const listed = await call(sys, 'GET', '/admin/v1/operator-tokens', { token: reader.token });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(reader.token);

    // Refused writes: 403, nothing created.
    const refused = await call(sys, 'POST', `/admin/v1/organizations/${org.id}/sites`, { token: reader.token, body: { name: 'Refused' } });
    expect(expectProblem(refused, 403).requiredScope).toBe('admin:write');
    expectProblem(await call(sys, 'POST', '/admin/v1/operator-tokens', { token: reader.token, body: { name: 'x', scopes: ['admin:write'] } }), 403);
    const sites = await call(sys, 'GET', `/admin/v1/organizations/${org.id}/sites`, asAdmin);
    expect(sites.text).not.toContain('Refused');

    // A write through a forwarded route, by the write token.
    const started = Date.now() - 5_000; // leeway for the clocks of the test and Postgres
    const site = await call(sys, 'POST', `/admin/v1/organizations/${org.id}/sites`, { token: writer.token, body: { name: 'Audited shop' } });
    expect(site.status, site.text).toBe(201);
    const traceId = site.headers.get('x-trace-id');
    let entry: Record<string, any> | undefined;
    for (let i = 0; i < 50 && !entry; i++) {
      entry = await findEntry(traceId!, reader.token, started);
      if (!entry) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(entry).toMatchObject({
      actor: { kind: 'operator-token', id: writer.id },
      method: 'POST',
      path: `/admin/v1/organizations/${org.id}/sites`,
      status: 201,
      orgId: org.id,
    });
    // The refused write is not in it.
    expect(await findEntry(refused.headers.get('x-trace-id')!, sys.adminToken, started)).toBeUndefined();

    // Revoked: 401 on the next request; an operator token never works on /api/v1.
    expect((await call(sys, 'DELETE', `/admin/v1/operator-tokens/${reader.id}`, { token: writer.token })).status).toBe(204);
    expectProblem(await call(sys, 'GET', '/admin/v1/organizations', { token: reader.token }), 401);
    expectProblem(await call(sys, 'GET', '/api/v1/campaigns', { token: writer.token }), 401);
  });
});
