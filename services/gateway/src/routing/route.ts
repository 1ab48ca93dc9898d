import type { Request, Response } from 'express';
import type { Kysely } from '@preflight/db';
import type { MemberAccess, Scope } from '@preflight/contract';
import type { Logger } from '@preflight/log';
import type { GatewayConfig } from '../config.ts';
import type { AdminCaller } from '../auth/admin-token.ts';
import type { KeyCache } from '../auth/key-cache.ts';
import type { UpstreamName } from '../proxy/upstreams.ts';
import type { KeyIdentity } from '../storage/api-keys.ts';
import type { OperatorIdentity } from '../storage/operator-tokens.ts';
import type { IdentityDb } from '../storage/schema.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

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

/** An endpoint the gateway answers itself (routes/<endpoint>.ts). */
export interface LocalEndpoint {
  handle(ctx: LocalContext): Promise<void>;
}

/**
 * Who may call a route: nobody in particular, an API key (with a scope, or `any`), or the operator
 * (and console members of the organisation with a role `members` allows; none without it).
 * An unauthenticated route may name `limitBy`, a path parameter holding a UUID: requests are then
 * rate-limited per its value (HOOK_RATE_LIMIT_*), and one whose value is no UUID is a 404 here.
 */
export type RouteAuth = { auth: 'none'; limitBy?: string } | { auth: 'api-key'; scope: Scope | 'any' } | { auth: 'admin'; members?: MemberAccess };

/**
 * Where a matched request goes: a service, or a handler in this process. `forwardHeaders` adds
 * request headers (lower case) to the ones every forwarded request carries (proxy/headers.ts),
 * for a route whose callers sign or describe their requests in headers of their own;
 * `bodyLimitBytes` replaces the default body limit for callers that send more (trackers' hooks).
 */
export type RouteTarget = { upstream: UpstreamName; forwardHeaders?: readonly string[]; bodyLimitBytes?: number } | { local: LocalEndpoint };

export type RouteSpec = { method: HttpMethod; pattern: string } & RouteAuth & RouteTarget;
