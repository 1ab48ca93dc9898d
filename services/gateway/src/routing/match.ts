import type { HttpMethod, RouteSpec } from './route.ts';

export interface CompiledRoute {
  spec: RouteSpec;
  regex: RegExp;
  paramNames: string[];
}

export type MatchResult =
  | { kind: 'found'; route: RouteSpec; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: HttpMethod[] }
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
 * Finds the route for a method and path. A path some route knows under other methods is a
 * 405 (with those methods for `Allow`), a path no route knows is a 404. One trailing slash is
 * tolerated, as express does.
 */
export function matchRoute(routes: readonly CompiledRoute[], method: string, path: string): MatchResult {
  const normalised = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const allow: HttpMethod[] = [];
  for (const route of routes) {
    const m = route.regex.exec(normalised);
    if (!m) continue;
    if (route.spec.method !== method) {
      if (!allow.includes(route.spec.method)) allow.push(route.spec.method);
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
