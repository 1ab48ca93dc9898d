import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../services/gateway/src/routes/index.ts';
import { call, freshTenant, type ApiResponse } from '../support/client.ts';
import { startSystem, type RunningSystem } from '../support/system.ts';
import { expectProblem } from './problems.ts';

// Issue 22, "keep the probes as suites": a tenant-isolation matrix generated from the
// gateway's route table, so a route added there is covered here without editing this file.
// - Every public route with a path id, called with organisation B's key (every scope) and each
//   of organisation A's real ids: 404, the same answer as for an id that never existed, never
//   A's data, never a 2xx, never a 403 that would tell the resource exists. B's own id on the
//   same route answers 2xx, so each 404 is about ownership and not a malformed call.
// - Every public route without one: nothing of A's in B's answer.
// - Every admin route: an API key (A's or B's, either header) gets 401. The operator sees
//   every organisation by design, so ownership is not what guards those routes.
// A path parameter this file has no id for fails the test: a new kind of id cannot slip by.
//
// Its own system: 100+ calls to /admin/v1 with API keys are wrong operator tokens, and the
// gateway locks out an address after ADMIN_AUTH_FAILURES_MAX of them (10 per minute), which on
// the shared system would refuse every other file's admin calls for a minute.

type Tenant = Awaited<ReturnType<typeof freshTenant>>;
type IdKind = 'campaign' | 'issue' | 'webhook' | 'site' | 'org' | 'apiKey' | 'eventKey' | 'none';

/** Which id a path parameter takes, by the collection it follows (`campaigns/:id`) or its own name. */
const PUBLIC_ID_SOURCES: Record<string, IdKind> = {
  'campaigns/:id': 'campaign',
  'issues/:id': 'issue',
  'webhooks/:id': 'webhook',
  // Event names are the catalogue's, the same for every organisation: not a tenant's resource.
  'events/:eventKey': 'eventKey',
};
const ADMIN_ID_SOURCES: Record<string, IdKind> = {
  ...PUBLIC_ID_SOURCES,
  'organizations/:orgId': 'org',
  'sites/:siteId': 'site',
  'api-keys/:keyId': 'apiKey',
  // Ids of things these fixtures do not create; the 401 comes before any lookup.
  'signers/:signerId': 'none',
  'campaign-testers/:campaignTesterId': 'none',
  'tasks/:taskId': 'none',
  'deliveries/:deliveryId': 'none',
  'integrations/:id': 'none',
  // Operator tokens belong to no organisation; the 401 comes before any lookup.
  'operator-tokens/:id': 'none',
  // The console's members API (its own tests and the console's browser tests cover members).
  'invitations/:invitationId': 'none',
  'members/:userId': 'none',
};

const PUBLIC_ROUTES = ROUTES.filter((r) => r.auth === 'api-key');
const ADMIN_ROUTES = ROUTES.filter((r) => r.auth === 'admin');
const paramsOf = (pattern: string) => [...pattern.matchAll(/([^/]+)\/:(\w+)/g)].map((m) => ({ name: m[2]!, source: `${m[1]}/:${m[2]}` }));
const label = (r: (typeof ROUTES)[number]) => `${r.method} ${r.pattern}`;

let sys: RunningSystem;
let a: Tenant;
let b: Tenant;
const ids: Record<'a' | 'b', Partial<Record<IdKind, string>>> = { a: {}, b: {} };
const VALID_BODIES: Record<string, unknown> = {
  'POST /api/v1/campaigns/:id/issues': { title: 'Isolation probe', severity: 'High', type: 'Bug' },
  'POST /api/v1/webhooks': { url: 'https://hooks.example.com/isolation', events: ['IssueCreated'] },
};

beforeAll(async () => {
  sys = await startSystem({ ADMIN_AUTH_FAILURES_MAX: '100000' });
  [a, b] = await Promise.all([freshTenant(sys), freshTenant(sys)]);
  for (const [side, t] of [['a', a], ['b', b]] as const) {
    const issue = await t.admin.createIssue(t.campaign.id, { title: `Issue of ${side}`, severity: 'High', type: 'Bug' });
    const hook = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: t.keys.all!.key, body: { url: `https://${side}.example.com/hook`, events: ['IssueCreated'] } });
    expect(hook.status).toBe(201);
    ids[side] = { campaign: t.campaign.id, issue: issue.id, webhook: hook.body.id, site: t.site.id, org: t.org.id, apiKey: t.keys.all!.id, eventKey: 'IssueCreated' };
  }
}, 180_000);
afterAll(async () => {
  await sys?.stop();
});

/** The pattern with each parameter replaced: by `pick(kind)`, or by `forParam` for the one named. */
function fill(pattern: string, sources: Record<string, IdKind>, pick: (kind: IdKind) => string, forParam?: { name: string; value: string }) {
  return pattern.replace(/([^/]+)\/:(\w+)/g, (_m, collection: string, name: string) => {
    const kind = sources[`${collection}/:${name}`];
    if (!kind) throw new Error(`no id source for '${collection}/:${name}' in ${pattern}; map it in this file`);
    return `${collection}/${forParam?.name === name ? forParam.value : pick(kind)}`;
  });
}

/** A's ids as they would appear in an answer (the event name is everyone's, so it is not one). */
const aIds = () => Object.entries(ids.a).filter(([kind]) => kind !== 'eventKey').map(([, id]) => id!);

function expectNothingOfA(res: ApiResponse, what: string) {
  for (const id of aIds()) expect(res.text, `${what} reveals ${id}`).not.toContain(id);
}

describe('every path parameter of the route table has an id source', () => {
  it('public and admin routes', () => {
    const unmapped = [
      ...PUBLIC_ROUTES.flatMap((r) => paramsOf(r.pattern).filter((p) => !PUBLIC_ID_SOURCES[p.source]).map((p) => `${label(r)}: ${p.source}`)),
      ...ADMIN_ROUTES.flatMap((r) => paramsOf(r.pattern).filter((p) => !ADMIN_ID_SOURCES[p.source]).map((p) => `${label(r)}: ${p.source}`)),
    ];
    expect(unmapped).toEqual([]);
    expect(PUBLIC_ROUTES.filter((r) => paramsOf(r.pattern).length > 0).length).toBeGreaterThanOrEqual(4);
  });
});

describe("organisation B's key on organisation A's ids: 404, as for an id that never existed", () => {
  const routes = PUBLIC_ROUTES.flatMap((r) => paramsOf(r.pattern).map((p) => ({ route: r, param: p })));
  it.each(routes.map((x) => [`${label(x.route)} with A's ids as :${x.param.name}`, x] as const))('%s', async (_title, { route, param }) => {
    const key = b.keys.all!.key;
    const body = VALID_BODIES[label(route)];
    const own = PUBLIC_ID_SOURCES[param.source]!;
    const methods = route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
    const send = (method: string, path: string) => call(sys, method, path, { apiKey: key, body: method === 'HEAD' ? undefined : body });

    // Positive control: B's own id of this kind works on this route (DELETE last, below).
    if (route.method !== 'DELETE') {
      const mine = await send(route.method, fill(route.pattern, PUBLIC_ID_SOURCES, (k) => ids.b[k] ?? randomUUID()));
      expect(mine.status, `B's own ${own} on ${label(route)}: ${mine.text}`).toBeLessThan(300);
      expectNothingOfA(mine, `B's own ${own} on ${label(route)}`);
    }

    const never = randomUUID();
    const unknown = await send(route.method, fill(route.pattern, PUBLIC_ID_SOURCES, (k) => ids.b[k] ?? randomUUID(), { name: param.name, value: never }));
    const unknownProblem = expectProblem(unknown, 404);
    // Every id A has, of the kind this parameter takes and of every other kind.
    const foreign = Object.entries(ids.a).filter(([kind]) => kind !== 'eventKey');
    expect(foreign.map(([kind]) => kind)).toContain(own === 'eventKey' ? 'campaign' : own);
    for (const [kind, id] of foreign) {
      for (const method of methods) {
        const path = fill(route.pattern, PUBLIC_ID_SOURCES, (k) => ids.b[k] ?? randomUUID(), { name: param.name, value: id! });
        const res = await send(method, path);
        const what = `${method} ${path} (A's ${kind})`;
        expect(res.status, `${what}: ${res.text}`).toBe(404);
        expectNothingOfA({ ...res, text: res.text.replaceAll(id!, '') }, what);
        if (method === 'HEAD') continue;
        const problem = expectProblem(res, 404);
        // The same answer as for an id that never existed: type, title, and detail up to the id.
        expect(problem.type, what).toBe(unknownProblem.type);
        expect(problem.title, what).toBe(unknownProblem.title);
        expect(String(problem.detail).replaceAll(id!, '<id>'), what).toBe(String(unknownProblem.detail).replaceAll(never, '<id>'));
        expect(Object.keys(problem).sort(), what).toEqual(Object.keys(unknownProblem).sort());
      }
    }

    if (route.method === 'DELETE') {
      const mine = await send('DELETE', fill(route.pattern, PUBLIC_ID_SOURCES, (k) => ids.b[k] ?? randomUUID()));
      expect(mine.status, `B's own ${own} on ${label(route)}: ${mine.text}`).toBeLessThan(300);
      ids.b[own] = (await call(sys, 'POST', '/api/v1/webhooks', { apiKey: key, body: VALID_BODIES['POST /api/v1/webhooks'] })).body.id;
    }
  });

  it("left A's data as it was: no issue filed in A's campaign, A's webhook still there", async () => {
    const key = a.keys.all!.key;
    const issues = await call(sys, 'GET', `/api/v1/campaigns/${ids.a.campaign}/issues`, { apiKey: key });
    expect(issues.status).toBe(200);
    expect(issues.body.items.map((i: { id: string }) => i.id)).toEqual([ids.a.issue]);
    const hooks = await call(sys, 'GET', '/api/v1/webhooks', { apiKey: key });
    expect(hooks.body.map((h: { id: string }) => h.id)).toEqual([ids.a.webhook]);
  });
});

describe("routes without a path id answer B nothing of A's", () => {
  const routes = PUBLIC_ROUTES.filter((r) => paramsOf(r.pattern).length === 0);
  it.each(routes.map((r) => [label(r), r] as const))('%s', async (_title, route) => {
    const res = await call(sys, route.method, route.pattern, { apiKey: b.keys.all!.key, body: VALID_BODIES[label(route)] });
    expect(res.status, res.text).toBeLessThan(300);
    expectNothingOfA(res, label(route));
  });
});

describe('API keys get 401 on every admin route (the operator, who sees all, gets through)', () => {
  it.each(ADMIN_ROUTES.map((r) => [label(r), r] as const))('%s', async (_title, route) => {
    const path = fill(route.pattern, ADMIN_ID_SOURCES, (k) => ids.a[k] ?? randomUUID());
    const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
    for (const [who, key] of [['A', a.keys.all!.key], ['B', b.keys.all!.key]] as const) {
      for (const headers of [{ authorization: `Bearer ${key}` }, { 'x-api-key': key }] as Array<Record<string, string>>) {
        const res = await call(sys, route.method, path, { body, headers });
        const what = `${route.method} ${path} with ${who}'s key in ${Object.keys(headers)[0]}`;
        expectProblem(res, 401);
        expectNothingOfA({ ...res, text: res.text.replace(path, '') }, what);
      }
    }
  });

  it("left the organisations as they were, and the operator sees A's resources", async () => {
    const op = (path: string) => call(sys, 'GET', path, { token: sys.adminToken });
    for (const t of [a, b]) {
      const keys = await op(`/admin/v1/organizations/${t.org.id}/api-keys`);
      expect(keys.status).toBe(200);
      const list = (Array.isArray(keys.body) ? keys.body : keys.body.items) as Array<{ id: string; revokedAt?: string | null }>;
      expect(list.map((k) => k.id)).toEqual([t.keys.all!.id]);
      expect(list.every((k) => !k.revokedAt)).toBe(true);
    }
    expect((await op(`/admin/v1/campaigns/${ids.a.campaign}`)).status).toBe(200);
    expect((await op(`/admin/v1/issues/${ids.a.issue}`)).status).toBe(200);
    const issues = await op(`/admin/v1/campaigns/${ids.a.campaign}/issues`);
    expect(issues.status).toBe(200);
    expect(issues.text).toContain(ids.a.issue);
  });
});
