import { endpointList, type Endpoint, type EndpointId } from '@preflight/contract';
import { UPSTREAM_NAMES, type UpstreamName } from '../proxy/upstreams.ts';
import type { GatewayEndpointId, LocalEndpoint, LocalEndpoints, RouteAuth, RouteSpec } from './route.ts';

/** What the gateway adds to a forwarded route beyond the manifest (proxy details of its own). */
export interface ForwardOptions {
  forwardHeaders?: readonly string[];
  bodyLimitBytes?: number;
}

const isUpstream = (owner: string): owner is UpstreamName => (UPSTREAM_NAMES as readonly string[]).includes(owner);

/** The manifest's access rule as the dispatcher reads it. */
function accessOf(e: Endpoint): RouteAuth {
  if (e.auth === 'api-key') return { auth: 'api-key', scope: e.scope };
  if (e.auth === 'none') return e.limitBy === undefined ? { auth: 'none' } : { auth: 'none', limitBy: e.limitBy };
  if (e.auth === 'admin') return e.members === undefined ? { auth: 'admin' } : { auth: 'admin', members: e.members };
  throw new Error(`gateway: ${e.method} ${e.path} is internal and never routed`);
}

/**
 * The gateway's routing table from the route manifest, in manifest order: every public, admin
 * and hook endpoint (internal ones are never routed). One the gateway owns is answered by its
 * handler in `local`; any other is forwarded to its owner, with `forward`'s extras if any.
 */
export function routesFromManifest(
  local: LocalEndpoints,
  forward: Partial<Record<EndpointId, ForwardOptions>> = {},
  endpoints = endpointList(),
): RouteSpec[] {
  return endpoints
    .filter((e) => e.auth !== 'internal')
    .map((e) => {
      const head = { method: e.method, pattern: e.path, ...accessOf(e) };
      if (e.owner === 'gateway') {
        const handler = local[e.id as GatewayEndpointId] as LocalEndpoint | undefined;
        if (!handler) throw new Error(`gateway: no handler for ${e.id} (${e.method} ${e.path})`);
        return { ...head, local: handler };
      }
      if (!isUpstream(e.owner)) throw new Error(`gateway: ${e.id} is owned by ${e.owner}, which is no upstream`);
      return { ...head, upstream: e.owner, ...forward[e.id] };
    });
}
