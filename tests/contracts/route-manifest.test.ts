/**
 * The route manifest (libs/contract/src/manifest) against everything derived from it or
 * written beside it: the gateway's routing table, the OpenAPI document, and what each service
 * registers. A new endpoint missing from either side fails here, naming it.
 */
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, endpointList, openApiPath, PUBLIC_ENDPOINTS, type ServiceName } from '@preflight/contract';
import { ROUTES } from '../../services/gateway/src/routes/index.ts';
import * as campaign from '../../services/campaign/src/routes/index.ts';
import * as consoleRoutes from '../../services/console/src/routes/index.ts';
import * as delivery from '../../services/delivery/src/routes/index.ts';
import * as integration from '../../services/integration/src/routes/index.ts';
import * as issue from '../../services/issue/src/routes/index.ts';
import * as webhook from '../../services/webhook/src/routes/index.ts';

const endpoints = endpointList();
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const sorted = (keys: Iterable<string>) => [...keys].sort();

/** Stands in for any dependency a registration reads while registering: every property, call and `new` answers itself. */
const anything: any = new Proxy(function anything() {}, {
  get: (_, prop) => (prop === 'then' ? undefined : prop === Symbol.toPrimitive ? () => '' : anything),
  apply: () => anything,
  construct: () => anything,
});

/**
 * The method and path of every route a service's routes/index.ts declares (every list of
 * registrations it exports), found by calling each registration with a recording app.
 */
function registered(routesModule: Record<string, unknown>): string[] {
  const list = Object.values(routesModule).filter(Array.isArray).flat();
  const seen: string[] = [];
  const app = new Proxy({} as Record<string, unknown>, {
    get: (_, prop) =>
      typeof prop === 'string' && ['get', 'post', 'put', 'patch', 'delete'].includes(prop)
        ? (path: unknown) => void (typeof path === 'string' && seen.push(key(prop, path)))
        : anything,
  });
  for (const register of list as Array<(app: unknown, ctx: unknown) => void>) register(app, anything);
  return seen;
}

const SERVICES: Record<Exclude<ServiceName, 'gateway'>, Record<string, unknown>> = { campaign, issue, webhook, delivery, integration, console: consoleRoutes };

describe('route manifest', () => {
  it('has one entry per method and path, and a doc on every public entry', () => {
    const keys = endpoints.map((e) => key(e.method, e.path));
    expect(new Set(keys).size).toBe(keys.length);
    for (const e of Object.values(PUBLIC_ENDPOINTS)) expect(e.doc, e.path).toBeDefined();
  });

  it('every entry the gateway routes has a gateway route, and every gateway route an entry', () => {
    const routed = endpoints.filter((e) => e.auth !== 'internal').map((e) => key(e.method, e.path));
    expect(ROUTES.map((r) => key(r.method, r.pattern))).toEqual(routed);
    for (const e of endpoints.filter((x) => x.auth !== 'internal')) {
      const route = ROUTES.find((r) => r.method === e.method && r.pattern === e.path)!;
      expect(route.auth, e.id).toBe(e.auth);
      expect('local' in route ? 'gateway' : route.upstream, e.id).toBe(e.owner);
      if (e.auth === 'api-key') expect(route.auth === 'api-key' && route.scope, e.id).toBe(e.scope);
    }
  });

  it('every public entry is an OpenAPI operation with its name, and every operation an entry', () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => `${key(method, path)} ${op.operationId}`));
    const publicOnes = Object.entries(PUBLIC_ENDPOINTS).map(([id, e]) => `${key(e.method, openApiPath(e.path))} ${id}`);
    expect(sorted(operations)).toEqual(sorted(publicOnes));
  });

  it.each(Object.keys(SERVICES) as Array<keyof typeof SERVICES>)('%s registers exactly the entries it owns', (service) => {
    const owned = endpoints.filter((e) => e.owner === service).map((e) => key(e.method, e.path));
    expect(sorted(registered(SERVICES[service]))).toEqual(sorted(owned));
  });
});
