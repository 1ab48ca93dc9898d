import type { HttpMethod, RouteSpec } from './route.ts';

export interface CompiledRoute {
  spec: RouteSpec;
  regex: RegExp;
  paramNames: string[];
}

export type MatchResult =
  | { kind: 'found'; route: RouteSpec; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: Array<HttpMethod | 'HEAD'> }
  | { kind: 'not_found' };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/a/:id/b` → a regex matching one non-empty segment per parameter. */
export function compileRoutes(specs: readonly RouteSpec[]): CompiledRoute[] {
  return specs.map((spec) => {
    const paramNames: string[] = [];
    const source = spec.pattern
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return escape(segment);
        paramNames.push(segment.slice(1));
        return '([^/]+)';
      })
      .join('/');
    return { spec, regex: new RegExp(`^${source}$`), paramNames };
  });
}

/**
 * Finds the route for a method and path. HEAD is GET without the body (RFC 9110 9.3.2): it
 * matches GET routes, and `Allow` names it wherever GET is allowed. A path some route knows
 * under other methods is a 405 (with those methods for `Allow`), a path no route knows is a
 * 404. One trailing slash is tolerated, as express does.
 */
export function matchRoute(routes: readonly CompiledRoute[], method: string, path: string): MatchResult {
  const normalised = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const wanted = method === 'HEAD' ? 'GET' : method;
  const allow: Array<HttpMethod | 'HEAD'> = [];
  for (const route of routes) {
    const m = route.regex.exec(normalised);
    if (!m) continue;
    if (route.spec.method !== wanted) {
      if (!allow.includes(route.spec.method)) allow.push(route.spec.method);
      if (route.spec.method === 'GET' && !allow.includes('HEAD')) allow.push('HEAD');
      continue;
    }
    const params: Record<string, string> = {};
    try {
      route.paramNames.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1]!)));
    } catch {
      return { kind: 'not_found' }; // a malformed %-escape names nothing
    }
    return { kind: 'found', route: route.spec, params };
  }
  return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
}
