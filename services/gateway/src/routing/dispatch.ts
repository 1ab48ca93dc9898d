import type { Request, RequestHandler, Response } from 'express';
import { AppError, jsonBodies, type Caller } from '@preflight/http';
import type { Logger } from '@preflight/log';
import type { KeyAdmission } from '../auth/api-key-auth.ts';
import type { GatewayMetrics } from '../metrics.ts';
import { forward } from '../proxy/forward.ts';
import type { Upstream, UpstreamName } from '../proxy/upstreams.ts';
import { rateLimitedDetail, rateLimitHeaders } from '../rate-limit/headers.ts';
import type { RateLimitDecision, RateLimitPolicy } from '../rate-limit/policy.ts';
import { existingOrgId } from '../routes/org-param.ts';
import type { KeyIdentity } from '../storage/api-keys.ts';
import { compileRoutes, matchRoute } from './match.ts';
import type { GatewayDeps, RouteSpec } from './route.ts';

export interface DispatchDeps extends GatewayDeps {
  metrics: GatewayMetrics;
  upstreams: Record<UpstreamName, Upstream>;
  /** Authenticates an API key and takes the rate-limit decision (auth/api-key-auth.ts). */
  admitKey: (req: Request) => Promise<KeyAdmission>;
  authenticateAdmin: (req: Request) => void;
  policy: RateLimitPolicy;
  logger: Logger;
}

const parseJson = jsonBodies();

function runMiddleware(handlers: RequestHandler[], req: Request, res: Response): Promise<void> {
  return handlers.reduce<Promise<void>>(
    (previous, handler) =>
      previous.then(
        () => new Promise<void>((resolve, reject) => void handler(req, res, (err?: unknown) => (err ? reject(err) : resolve()))),
      ),
    Promise.resolve(),
  );
}

/**
 * The gateway's whole request path, driven by the route table:
 *
 *   match (404, or 405 with Allow) → authenticate (401) → rate limit (429) → scope (403) → target
 *
 * The rate limit comes before the scope check on purpose: a call refused for its scope still
 * counts against the key, so every response to an authenticated /api/v1 call carries the
 * rate-limit headers and a key cannot probe scopes for free. Admin calls are not rate-limited.
 */
export function dispatcher(routes: readonly RouteSpec[], deps: DispatchDeps): RequestHandler {
  const compiled = compileRoutes(routes);
  return async (req, res, next) => {
    const match = matchRoute(compiled, req.method, req.path);
    if (match.kind === 'not_found') return next();
    if (match.kind === 'method_not_allowed') {
      throw new AppError('method_not_allowed', `${req.method} is not allowed on ${req.path}; use ${match.allow.join(', ')}.`, {
        headers: { Allow: match.allow.join(', ') },
      });
    }
    const { route, params } = match;
    res.locals.routeLabel = route.pattern;

    let caller: Caller | undefined;
    let key: KeyIdentity | undefined;
    if (route.auth === 'api-key') {
      const admission = await deps.admitKey(req);
      key = admission.key;
      enforceRateLimit(deps, admission.decision, res);
      if (route.scope !== 'any' && !key.scopes.includes(route.scope)) {
        throw new AppError('forbidden', `The API key does not carry the required scope '${route.scope}'.`, { requiredScope: route.scope });
      }
      caller = { kind: 'api-key', orgId: key.orgId, keyId: key.keyId, keyName: key.keyName };
    } else if (route.auth === 'admin') {
      deps.authenticateAdmin(req);
      caller = { kind: 'admin' };
    }

    if ('local' in route) {
      if (route.auth === 'admin') await runMiddleware(parseJson, req, res);
      await route.local.handle({ req, res, params, key, deps });
      return;
    }
    if (route.auth === 'admin' && params.orgId !== undefined) await existingOrgId(deps.db, params.orgId);
    if (!caller) throw new Error(`route ${route.method} ${route.pattern} forwards without a caller`);
    await forward(req, res, deps.upstreams[route.upstream], caller, deps);
  };
}

function enforceRateLimit(deps: DispatchDeps, decision: RateLimitDecision, res: Response): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(deps.policy, decision))) res.setHeader(name, value);
  if (decision.admitted) return;
  deps.metrics.rateLimited.inc();
  throw new AppError('rate_limited', rateLimitedDetail(deps.policy, decision.resetSeconds), {
    headers: { 'Retry-After': String(decision.resetSeconds) },
  });
}
