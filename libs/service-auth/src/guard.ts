import type { Express, RequestHandler } from 'express';
import { AppError, bindCall, callOf } from '@preflight/http';
import { GATEWAY, ServiceAuthError, type TokenVerifier } from './tokens.ts';

const HOW = 'send `Authorization: Bearer <service token>` (docs/development-reference.md, "Service-to-service authentication")';

/**
 * The check in front of every route of a service port: a valid token addressed to this service
 * from the gateway or one of `peers`, else 401 (no or bad token) or 403 (a service that never
 * calls this one). Identity headers count for nothing; the end caller comes from the token.
 */
export function serviceAuthGuard(opts: { self: string; peers: readonly string[]; verifier: TokenVerifier }): RequestHandler {
  const allowed = new Set([GATEWAY, ...opts.peers]);
  return (req, _res, next) => {
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
    if (!token) {
      next(new AppError('unauthorized', `The ${opts.self} service answers only Preflight services: ${HOW}.`));
      return;
    }
    opts.verifier.verify(token).then(
      (call) => {
        if (!allowed.has(call.service)) {
          next(new AppError('forbidden', `The ${call.service} service may not call the ${opts.self} service.`));
          return;
        }
        bindCall(req, call);
        next();
      },
      (err: unknown) => {
        if (err instanceof ServiceAuthError) next(new AppError('unauthorized', `${err.message} The ${opts.self} service answers only Preflight services: ${HOW}.`));
        else next(err);
      },
    );
  };
}

const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'all']);

/**
 * A route registration that only `services` may call (403 for any other, the gateway included),
 * applied where routes are listed (routes/index.ts), so a route file need not know. The app is
 * wrapped so each route the registration adds gets the check as its first handler.
 */
export function onlyFrom<C>(services: readonly string[], registration: (app: Express, ctx: C) => void): (app: Express, ctx: C) => void {
  const guard: RequestHandler = (req, _res, next) => {
    const service = callOf(req)?.service;
    if (service !== undefined && services.includes(service)) next();
    else next(new AppError('forbidden', `This route answers only the ${services.join(' and ')} service${services.length > 1 ? 's' : ''}${service ? `, not ${service}` : ''}.`));
  };
  return (app, ctx) => {
    const guarded = new Proxy(app, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        // Middleware or a Route object would escape the check: refuse at start rather than serve unguarded.
        if (prop === 'use' || prop === 'route') throw new Error(`onlyFrom: a guarded registration may define routes only (app.${prop} called)`);
        if (typeof prop !== 'string' || !ROUTE_METHODS.has(prop) || typeof value !== 'function') return value;
        // `app.get(name)` with one argument reads a setting; only route definitions get the guard.
        return (path: unknown, ...handlers: unknown[]) => (handlers.length ? value.call(target, path, guard, ...handlers) : value.call(target, path));
      },
    });
    registration(guarded, ctx);
  };
}
