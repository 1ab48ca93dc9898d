import type { Request, RequestHandler, Response } from 'express';
import { AppError, DEFAULT_BODY_LIMIT, isUuid, jsonBodies, notFound, type Caller } from '@preflight/http';
import { currentTrace, type Logger } from '@preflight/log';
import type { KeyAdmission } from '../auth/api-key-auth.ts';
import { mayWrite, type AdminCaller } from '../auth/admin-token.ts';
import type { AuditRecorder } from '../audit/recorder.ts';
import { beginIdempotentPost, type IdempotencyDeps } from '../idempotency/idempotent-post.ts';
import { idempotencyKeyOf, REPLAYED_HEADER, requestFingerprint } from '../idempotency/key-header.ts';
import type { PerKeyInFlight } from '../limits/slots.ts';
import type { GatewayMetrics } from '../metrics.ts';
import { forward } from '../proxy/forward.ts';
import { readBody, refuseFromHead, withinReadDeadline } from '../proxy/request-body.ts';
import type { Upstream, UpstreamName } from '../proxy/upstreams.ts';
import { rateLimitedDetail, rateLimitHeaders } from '../rate-limit/headers.ts';
import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from '../rate-limit/policy.ts';
import { existingOrgId } from '../routes/org-param.ts';
import type { KeyIdentity } from '../storage/api-keys.ts';
import { compileRoutes, matchRoute } from './match.ts';
import { admitMember } from './member-access.ts';
import type { GatewayDeps, RouteSpec } from './route.ts';

export interface DispatchDeps extends GatewayDeps {
  metrics: GatewayMetrics;
  upstreams: Record<UpstreamName, Upstream>;
  /** Authenticates an API key and takes the rate-limit decision (auth/api-key-auth.ts). */
  admitKey: (req: Request) => Promise<KeyAdmission>;
  /** The bootstrap token, an operator token, or the console's token for a member (auth/admin-token.ts). */
  authenticateAdmin: (req: Request) => Promise<AdminCaller>;
  /** Audit log entries of admin writes, written after the answer (audit/recorder.ts). */
  audit: AuditRecorder;
  policy: RateLimitPolicy;
  /** Per operator token or console member on /admin/v1 (ADMIN_RATE_LIMIT_*). */
  adminLimiter: RateLimiter & { policy: RateLimitPolicy };
  /** Per value of an unauthenticated route's `limitBy` parameter: the inbound hooks' connection id (HOOK_RATE_LIMIT_*). */
  hookLimiter: RateLimiter & { policy: RateLimitPolicy };
  /** Idempotency-Key on POSTs (idempotency/). */
  idempotency: IdempotencyDeps;
  logger: Logger;
  /** Requests in flight per API key (KEY_CONCURRENCY_MAX). */
  inFlight: PerKeyInFlight;
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
 *   match (404, or 405 with Allow) → request head (400, 413) → authenticate (401; admin: 429
 *   lockout) → rate limit (429) → scope (403; admin: `admin:write` on anything but GET/HEAD;
 *   a console member: the route's `members` role, 403, and its `:orgId`, 404)
 *   → key concurrency (429) → body (408, 413)
 *   → Idempotency-Key on POSTs (400, 422, 409, 503, or a replay) → target (503)
 *
 * The rate limit comes before the scope check on purpose: a call refused for its scope still
 * counts against the key, so every response to an authenticated /api/v1 call carries the
 * rate-limit headers and a key cannot probe scopes for free. Admin calls are limited per
 * operator token (the bootstrap token is one bucket) or console member, who is forwarded as the
 * caller (services confine it to its organisation); an admin write answered with a 2xx is
 * recorded in the audit log once the answer is out. An unauthenticated route with `limitBy` (the trackers' inbound hooks) is
 * limited per value of that path parameter, a UUID (anything else is a 404 before any body is
 * read): no caller, so no identity headers and no Idempotency-Key. Bodies are read whole, under a deadline, before anything goes upstream
 * (docs/reliability.md), and an idempotent POST is fingerprinted by them.
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
    const bodyLimit = ('bodyLimitBytes' in route && route.bodyLimitBytes) || DEFAULT_BODY_LIMIT;
    refuseFromHead(req, bodyLimit);

    let caller: Caller | undefined;
    let key: KeyIdentity | undefined;
    let admin: AdminCaller | undefined;
    let scope = '';
    if (route.auth === 'api-key') {
      const admission = await deps.admitKey(req);
      key = admission.key;
      scope = `key:${key.orgId}:${key.keyId}`;
      enforceRateLimit(deps, deps.policy, admission.decision, res);
      if (route.scope !== 'any' && !key.scopes.includes(route.scope)) {
        throw new AppError('forbidden', `The API key does not carry the required scope '${route.scope}'.`, { requiredScope: route.scope });
      }
      holdKeyPlace(deps, key.keyId, res);
      caller = { kind: 'api-key', orgId: key.orgId, keyId: key.keyId, keyName: key.keyName };
    } else if (route.auth === 'admin') {
      admin = await deps.authenticateAdmin(req);
      scope = admin.subject;
      enforceRateLimit(deps, deps.adminLimiter.policy, await deps.adminLimiter.check(admin.subject), res);
      if (admin.member) admitMember(route.members, params, admin.member);
      else if (route.method !== 'GET' && !mayWrite(admin)) {
        throw new AppError('forbidden', 'This operator token is read-only: every admin write needs the scope admin:write.', { requiredScope: 'admin:write' });
      }
      if (route.method !== 'GET') auditWhenAnswered(deps, admin, params, req, res);
      caller = admin.member ?? { kind: 'admin' };
    } else if (route.limitBy !== undefined) {
      const id = params[route.limitBy];
      if (!isUuid(id)) throw notFound(route.limitBy.replace(/Id$/, ''), id ?? '');
      enforceRateLimit(deps, deps.hookLimiter.policy, await deps.hookLimiter.check(`hook:${id.toLowerCase()}`), res);
    }
    // Checked once the caller is known (an unauthenticated request is 401, a bad key header on an
    // authenticated one carries the rate-limit headers). Only POSTs create anything; elsewhere
    // the header is ignored, as Stripe does.
    const idempotencyKey = route.method === 'POST' && route.auth !== 'none' ? idempotencyKeyOf(req) : undefined;
    /** 'answered' when the Idempotency-Key step answered (a replay); else run the request. */
    const idempotent = (body: Buffer | string | undefined) =>
      idempotencyKey === undefined
        ? Promise.resolve('run' as const)
        : beginIdempotentPost(req, res, { scope, route: `${route.method} ${route.pattern}`, key: idempotencyKey }, requestFingerprint(req.method, req.originalUrl, body), deps.idempotency);

    const bodyDeadlineMs = deps.config.REQUEST_BODY_TIMEOUT_MS;
    if ('local' in route) {
      if (route.auth === 'admin') await withinReadDeadline(bodyDeadlineMs, runMiddleware(parseJson, req, res));
      if ((await idempotent(req.body === undefined ? undefined : JSON.stringify(req.body))) === 'answered') return;
      await route.local.handle({ req, res, params, key, admin, deps });
      return;
    }
    if (route.auth === 'admin' && params.orgId !== undefined) await existingOrgId(deps.db, params.orgId);
    if (!caller && route.auth !== 'none') throw new Error(`route ${route.method} ${route.pattern} forwards without a caller`);
    let body: Buffer | undefined;
    try {
      body = await readBody(req, bodyLimit, bodyDeadlineMs);
    } catch (err) {
      if (req.destroyed) return; // the caller left mid-body; nobody to answer
      throw err;
    }
    if ((await idempotent(body)) === 'answered') return;
    await forward(req, res, deps.upstreams[route.upstream], caller, body, {
      ...deps,
      queueDeadlineMs: deps.config.UPSTREAM_QUEUE_TIMEOUT_MS,
      whole: idempotencyKey !== undefined,
      forwardHeaders: route.forwardHeaders,
    });
  };
}

/**
 * Records an admin write in the audit log once its answer is out, if that answer was a 2xx and
 * not an Idempotency-Key replay (the first request was recorded; the replay changed nothing).
 * On `close`, which follows `finish` and also comes when the client left after the headers went
 * out; `at` is that moment, so sequential writes are in order whenever their entries are
 * inserted. `orgId` is a member's own organisation (the only one it can write to), else the
 * route's `:orgId`, or the organisation a gateway endpoint created; no lookup is made for other
 * ids. The trace id is the one problem bodies carry.
 */
function auditWhenAnswered(deps: DispatchDeps, admin: AdminCaller, params: Record<string, string>, req: Request, res: Response): void {
  const traceId = currentTrace()?.traceId ?? null;
  const path = req.originalUrl.split('?')[0]!;
  whenClosed(res, () => {
    if (!res.headersSent || res.statusCode < 200 || res.statusCode >= 300 || res.getHeader(REPLAYED_HEADER) === 'true') return;
    const created = res.locals.auditOrgId as string | undefined;
    deps.audit.record({
      at: new Date(),
      actor: admin.actor,
      method: req.method,
      path,
      status: res.statusCode,
      orgId: admin.member?.orgId ?? (isUuid(params.orgId) ? params.orgId.toLowerCase() : (created ?? null)),
      traceId,
    });
  });
}

/**
 * Takes one of the key's in-flight places until the response is done or the client gone, so
 * no single key can hold more than KEY_CONCURRENCY_MAX of the gateway's and upstreams' capacity.
 */
function holdKeyPlace(deps: DispatchDeps, keyId: string, res: Response): void {
  const release = deps.inFlight.tryEnter(keyId);
  if (!release) {
    deps.metrics.concurrencyLimited.inc();
    throw new AppError('rate_limited', `More than ${deps.inFlight.max} requests of this API key are in flight at once. Retry after 1 second.`, {
      headers: { 'Retry-After': '1' },
    });
  }
  whenClosed(res, release);
}

/**
 * Runs `fn` once the response is done or its client gone, also when that happened while the
 * request was being authenticated: a `close` listener added after the event never fires, and
 * a key place taken then would be held for good (clients that give up mid-request leaked places
 * until the key got nothing but 429s).
 */
function whenClosed(res: Response, fn: () => void): void {
  if (res.closed || res.destroyed) fn();
  else res.once('close', fn);
}

function enforceRateLimit(deps: DispatchDeps, policy: RateLimitPolicy, decision: RateLimitDecision, res: Response): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(policy, decision))) res.setHeader(name, value);
  if (decision.admitted) return;
  deps.metrics.rateLimited.inc();
  throw new AppError('rate_limited', rateLimitedDetail(policy, decision.resetSeconds), {
    headers: { 'Retry-After': String(decision.resetSeconds) },
  });
}
