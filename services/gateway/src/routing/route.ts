import type { Request, Response } from 'express';
import type { Kysely } from '@preflight/db';
import type { EndpointAccess, EndpointsOf, HttpMethod } from '@preflight/contract';
import { endpointIo, type EndpointIo } from '@preflight/service-kit';
import type { Logger } from '@preflight/log';
import type { GatewayConfig } from '../config.ts';
import type { AdminCaller } from '../auth/admin-token.ts';
import type { KeyCache } from '../auth/key-cache.ts';
import type { UpstreamName } from '../proxy/upstreams.ts';
import type { KeyIdentity } from '../storage/api-keys.ts';
import type { OperatorIdentity } from '../storage/operator-tokens.ts';
import type { IdentityDb } from '../storage/schema.ts';

export type { HttpMethod };

/** What the gateway's own endpoints may use. */
export interface GatewayDeps {
  config: GatewayConfig;
  db: Kysely<IdentityDb>;
  keyCache: KeyCache;
  /** Operator tokens' entries (namespace `opr`), for their revocation. */
  operatorCache: KeyCache<OperatorIdentity>;
  logger: Logger;
}

export interface LocalContext {
  req: Request;
  res: Response;
  /** Path parameters of the matched pattern, URI-decoded. */
  params: Record<string, string>;
  /** The authenticated key, on `api-key` routes. */
  key?: KeyIdentity;
  /**
   * The operator (bootstrap or operator token) or a console member (`admin.member`, already
   * admitted to this route and its `:orgId`), on `admin` routes.
   */
  admin?: AdminCaller;
  deps: GatewayDeps;
}

export type GatewayEndpointId = EndpointsOf<'gateway'>;

/** An endpoint the gateway answers itself (routes/<entry's file>.ts), made by `localEndpoint`. */
export interface LocalEndpoint<K extends GatewayEndpointId = GatewayEndpointId> {
  readonly id: K;
  handle(ctx: LocalContext): Promise<void>;
}

/** A handler for every manifest entry the gateway owns, each made for its own entry. */
export type LocalEndpoints = { [K in GatewayEndpointId]: LocalEndpoint<K> };

/**
 * The gateway's `route()` (libs/service-kit): a handler of manifest entry `id`, whose `io.send`
 * takes exactly the entry's success body (status: the entry's, unless given) and whose
 * `io.body` / `io.query` are parsed by the entry's schemas when first read (422 / 400), so a
 * handler checks access and path ids before reading them.
 */
export function localEndpoint<K extends GatewayEndpointId>(id: K, spec: { handle(ctx: LocalContext, io: EndpointIo<K>): Promise<void> }): LocalEndpoint<K> {
  return { id, handle: (ctx) => spec.handle(ctx, endpointIo(id, ctx.req, ctx.res)) };
}

/**
 * Who may call a route: the manifest's access rules but `internal` (never routed). An
 * unauthenticated route's `limitBy` names a path parameter holding a UUID: requests are then
 * rate-limited per its value (HOOK_RATE_LIMIT_*), and one whose value is no UUID is a 404 here.
 */
export type RouteAuth = Exclude<EndpointAccess, { auth: 'internal' }>;

/**
 * Where a matched request goes: a service, or a handler in this process. `forwardHeaders` adds
 * request headers (lower case) to the ones every forwarded request carries (proxy/headers.ts),
 * for a route whose callers sign or describe their requests in headers of their own;
 * `bodyLimitBytes` replaces the default body limit for callers that send more (trackers' hooks).
 */
export type RouteTarget = { upstream: UpstreamName; forwardHeaders?: readonly string[]; bodyLimitBytes?: number } | { local: LocalEndpoint };

export type RouteSpec = { method: HttpMethod; pattern: string } & RouteAuth & RouteTarget;
