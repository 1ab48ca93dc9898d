import { describe, expect, it } from 'vitest';
import { HOOK_ENDPOINTS, PUBLIC_ENDPOINTS, type Endpoint, type EndpointAccess, type EndpointId, type ServiceName } from '@preflight/contract';
import { TRACKER_HOOK_BODY_LIMIT } from '@preflight/http';
import { ROUTES } from '../src/routes/index.ts';
import { routesFromManifest, type ForwardOptions } from '../src/routing/from-manifest.ts';
import type { LocalEndpoint } from '../src/routing/route.ts';
import { compileRoutes, matchRoute } from '../src/routing/match.ts';

const routes = compileRoutes(ROUTES);
const id = '6f1c1f0e-8a43-4d4e-9a43-2f1c1f0e8a43';

describe('route matching', () => {
  it('finds the route and its parameters', () => {
    const m = matchRoute(routes, 'POST', `/api/v1/campaigns/${id}/issues`);
    expect(m.kind).toBe('found');
    if (m.kind !== 'found') return;
    expect(m.params).toEqual({ id });
    expect(m.route).toMatchObject({ auth: 'api-key', scope: 'write', upstream: 'issue' });
  });

  it('tells a wrong method (405 with the allowed ones) from an unknown path (404)', () => {
    expect(matchRoute(routes, 'DELETE', `/api/v1/campaigns/${id}/issues`)).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD', 'POST'] });
    expect(matchRoute(routes, 'GET', '/api/v1/nothing')).toEqual({ kind: 'not_found' });
    expect(matchRoute(routes, 'GET', `/api/v1/campaigns/${id}/issues/extra`)).toEqual({ kind: 'not_found' });
    expect(matchRoute(routes, 'GET', '/api/v1/campaigns//issues')).toEqual({ kind: 'not_found' });
  });

  it('matches HEAD as GET, and never to a route of another method', () => {
    const m = matchRoute(routes, 'HEAD', `/api/v1/issues/${id}`);
    expect(m.kind === 'found' && m.route.method).toBe('GET');
    expect(matchRoute(routes, 'HEAD', '/api/v1/webhooks/' + id)).toEqual({ kind: 'method_not_allowed', allow: ['DELETE'] });
  });

  it('tolerates one trailing slash and decodes parameters', () => {
    expect(matchRoute(routes, 'GET', '/api/v1/me/').kind).toBe('found');
    const m = matchRoute(routes, 'GET', '/admin/v1/issues/a%20b');
    expect(m.kind === 'found' && m.params.id).toBe('a b');
    expect(matchRoute(routes, 'GET', '/admin/v1/issues/%E0%A4%A').kind).toBe('not_found');
  });

  it('has exactly one route per method and pattern, and a scope on every API-key route', () => {
    const seen = new Set(ROUTES.map((r) => `${r.method} ${r.pattern}`));
    expect(seen.size).toBe(ROUTES.length);
    for (const route of ROUTES) {
      if (route.pattern.startsWith('/api/v1/')) expect(['none', 'api-key']).toContain(route.auth);
      if (route.pattern.startsWith('/admin/v1/')) expect(route.auth).toBe('admin');
      // Unauthenticated and forwarded: only with a per-parameter rate limit.
      if (route.auth === 'none' && 'upstream' in route) expect(route.limitBy, route.pattern).toBeDefined();
    }
  });

  it('routes each public entry with its access: the gateway\'s own answered here, the others forwarded to their owner', () => {
    const row = (method: string, path: string, access: string, owner: string) => [method, path, access, owner];
    const table = ROUTES.filter((r) => r.pattern.startsWith('/api/v1/')).map((r) =>
      row(r.method, r.pattern, r.auth === 'api-key' ? r.scope : r.auth, 'upstream' in r ? r.upstream : 'gateway'),
    );
    const manifest = Object.values(PUBLIC_ENDPOINTS).map((e) => row(e.method, e.path, e.auth === 'api-key' ? e.scope : e.auth, e.owner));
    expect(table).toEqual(manifest);
  });

  it('forwards the trackers\' hooks unauthenticated, limited per connection, with their signature headers and a larger body', () => {
    const hook = ROUTES.find((r) => r.pattern === HOOK_ENDPOINTS.trackerHook.path)!;
    expect(hook).toMatchObject({ method: 'POST', auth: 'none', limitBy: 'connectionId', upstream: 'integration', bodyLimitBytes: TRACKER_HOOK_BODY_LIMIT });
    expect('forwardHeaders' in hook && hook.forwardHeaders).toEqual(expect.arrayContaining(['x-hub-signature-256', 'x-hub-signature', 'linear-signature']));
  });
});

describe('routes from the manifest', () => {
  const handler: LocalEndpoint = { id: 'getMe', handle: async () => undefined };
  const entry = (id: string, owner: ServiceName, access: EndpointAccess = { auth: 'admin' }): Endpoint & { id: EndpointId } => ({ id: id as EndpointId, method: 'GET', path: `/api/v1/${id}`, owner, ...access });
  // Only the handlers a test's entries need; the type asks for every gateway endpoint's.
  const handlers = (h: Record<string, LocalEndpoint>) => h as Parameters<typeof routesFromManifest>[0];

  it('answers a gateway endpoint with its handler, forwards any other to its owner with its extras, and never routes internal ones', () => {
    const routes = routesFromManifest(handlers({ getMe: handler }), { a: { bodyLimitBytes: 9 } } as Partial<Record<EndpointId, ForwardOptions>>, [
      entry('getMe', 'gateway', { auth: 'api-key', scope: 'any' }),
      entry('a', 'issue'),
      entry('b', 'issue', { auth: 'internal', callers: ['integration'] }),
    ]);
    expect(routes).toEqual([
      { method: 'GET', pattern: '/api/v1/getMe', auth: 'api-key', scope: 'any', local: handler },
      { method: 'GET', pattern: '/api/v1/a', auth: 'admin', upstream: 'issue', bodyLimitBytes: 9 },
    ]);
  });

  it('carries which console members may call each admin route, none for the operator\'s own', () => {
    const members = (method: string, pattern: string) => {
      const route = ROUTES.find((r) => r.method === method && r.pattern === pattern)!;
      return route.auth === 'admin' ? route.members : 'not an admin route';
    };
    expect(members('GET', '/admin/v1/organizations')).toBeUndefined();
    expect(members('GET', '/admin/v1/audit-log')).toBeUndefined();
    expect(members('POST', '/admin/v1/organizations/:orgId/api-keys')).toBe('Admin');
    expect(members('POST', '/admin/v1/organizations/:orgId/webhooks')).toBe('Admin');
    expect(members('GET', '/admin/v1/issues/:id')).toBe('Member');
    const routes = routesFromManifest(handlers({}), {}, [entry('a', 'issue', { auth: 'admin', members: 'Member' })]);
    expect(routes).toEqual([{ method: 'GET', pattern: '/api/v1/a', auth: 'admin', members: 'Member', upstream: 'issue' }]);
  });

  it('refuses a gateway endpoint without a handler', () => {
    expect(() => routesFromManifest(handlers({}), {}, [entry('x', 'gateway')])).toThrow('no handler for x');
  });
});
