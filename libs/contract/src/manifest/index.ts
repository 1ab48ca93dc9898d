import type { z } from 'zod';
import { ADMIN_ENDPOINTS, HOOK_ENDPOINTS } from './admin.ts';
import { CONSOLE_ENDPOINTS } from './console.ts';
import type { Endpoint, ServiceName } from './endpoint.ts';
import { INTERNAL_ENDPOINTS } from './internal-endpoints.ts';
import { PUBLIC_ENDPOINTS } from './public.ts';

/**
 * The route manifest: every endpoint of the system once, keyed by a name (the operationId of a
 * public one). The gateway's routing table (services/gateway/src/routes/index.ts), the OpenAPI
 * document (openapi.ts) and the internal-contract snapshots are built from it; tests check that
 * each service serves exactly the entries it owns. Order matters only for the document and for
 * `Allow` headers: the gateway lists methods in manifest order.
 */
export const ENDPOINTS = { ...PUBLIC_ENDPOINTS, ...ADMIN_ENDPOINTS, ...CONSOLE_ENDPOINTS, ...HOOK_ENDPOINTS, ...INTERNAL_ENDPOINTS };

export type EndpointId = keyof typeof ENDPOINTS;

/** The names of the endpoints a service answers, e.g. `EndpointsOf<'gateway'>`. */
export type EndpointsOf<S extends ServiceName> = { [K in EndpointId]: (typeof ENDPOINTS)[K]['owner'] extends S ? K : never }[EndpointId];

/** The success body an endpoint's handler sends, typed by the manifest (`never` where the manifest declares none). */
export type ResponseOf<K extends EndpointId> = (typeof ENDPOINTS)[K] extends { response: { body: infer S extends z.ZodType } } ? z.output<S> : never;

/** The request body an endpoint's handler receives once parsed. */
export type RequestOf<K extends EndpointId> = (typeof ENDPOINTS)[K] extends { request: { body: infer S extends z.ZodType } } ? z.output<S> : never;

/**
 * What a client may send as an entry's request body: its schema's input, in which fields the
 * service defaults may be left out (`RequestOf` is what the handler gets once parsed).
 */
export type SendOf<K extends EndpointId> = (typeof ENDPOINTS)[K] extends { request: { body: infer S extends z.ZodType } } ? z.input<S> : never;

/** The query an endpoint's handler receives once parsed (`never` where the manifest declares none). */
export type QueryOf<K extends EndpointId> = (typeof ENDPOINTS)[K] extends { request: { query: infer S extends z.ZodType } } ? z.output<S> : never;

/**
 * An entry's path with its `:name` parameters filled in (URI-encoded): what a client of the
 * endpoint requests, without restating where it lives. A parameter left out throws.
 */
export function pathOf(id: EndpointId, params: Record<string, string> = {}): string {
  return ENDPOINTS[id].path.replace(/:([A-Za-z]\w*)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`pathOf(${id}): no value for :${name}`);
    return encodeURIComponent(value);
  });
}

/** Every entry with its name, in manifest order. */
export const endpointList = (): Array<Endpoint & { id: EndpointId }> =>
  (Object.entries(ENDPOINTS) as Array<[EndpointId, Endpoint]>).map(([id, e]) => ({ id, ...e }));

export { ADMIN_ENDPOINTS, HOOK_ENDPOINTS, INTERNAL_ENDPOINTS, PUBLIC_ENDPOINTS };
export { INTERNAL_CONTRACTS, type InternalContract } from './internal-endpoints.ts';
export { EventNamesSchema } from './public.ts';
export { openApiPath, type Endpoint, type EndpointAccess, type HttpMethod, type MemberAccess, type OperationDoc, type ServiceName } from './endpoint.ts';

const ROUTE_FILE_PREFIX = { 'api-key': 'public', none: 'public', admin: 'admin', internal: 'internal' } as const;

/**
 * The route file (without `.ts`) that implements an entry in its owner's `src/routes/`: the
 * entry's side and its name in kebab case, a leading `admin`/`internal` of the name not
 * repeated (`listWebhooks` → `public-list-webhooks`, `adminEnableWebhook` → `admin-enable-webhook`).
 */
export function routeFileOf(entry: { id: string; auth: Endpoint['auth'] }): string {
  const words = entry.id.replace(/^(admin|internal)(?=[A-Z])/, '').split(/(?=[A-Z])/);
  return [ROUTE_FILE_PREFIX[entry.auth], ...words].join('-').toLowerCase();
}

/** A service's entries, in manifest order, each with its route file. */
export const endpointsOwnedBy = (owner: ServiceName): Array<Endpoint & { id: EndpointId; file: string }> =>
  endpointList()
    .filter((e) => e.owner === owner)
    .map((e) => ({ ...e, file: routeFileOf(e) }));
