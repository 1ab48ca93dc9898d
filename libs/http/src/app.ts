import express, { type Express, type RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '@preflight/log';
import { AppError } from './errors.ts';
import { jsonBodies } from './json-body.ts';
import { httpMetrics } from './metrics.ts';
import { DEFAULT_RETRY_AFTER_SECONDS, problemHandler, sendProblem } from './problem.ts';
import { traceMiddleware } from './trace.ts';
import { Dependencies, type DependencyCheck, type ReadinessCheck } from './dependencies.ts';

export interface AppOptions {
  service: string;
  logger: Logger;
  registry: Registry;
  /**
   * The process's dependencies. A bare function (or `gate: 'grace'`) fails `/readyz` once it has
   * failed for longer than `readinessGraceMs`; `gate: 'never'` only shows in `/healthz` and the
   * `dependency_up` metric. Liveness (`/healthz`) never depends on any of them.
   */
  readiness?: Record<string, ReadinessCheck | DependencyCheck>;
  /** How long a gated dependency may fail before `/readyz` does (default 10 s; 0: at once). */
  readinessGraceMs?: number;
  /** Leave bodies unparsed (the gateway reads them itself, under a deadline, per route). */
  rawBodies?: boolean;
  bodyLimitBytes?: number;
  trustProxy?: boolean | number | string;
  /**
   * Runs before any body is read and any route: the service-token check (libs/service-auth).
   * Health, readiness and metrics are answered before it and stay open.
   */
  authenticate?: RequestHandler;
}

export interface ServiceApp {
  app: Express;
  /** Flip `/readyz` to 503 so load balancers drain this process before it stops. */
  markDraining(): void;
}

function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const failed = res.statusCode >= 500;
      // Built only when it is written (at `warn` and above, only 5xx answers are).
      if (!failed && !logger.isLevelEnabled('info')) return;
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const line = { method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(ms * 10) / 10 };
      if (failed) logger.warn(line, 'request');
      else logger.info(line, 'request');
    });
    next();
  };
}

/**
 * The one way a service builds its HTTP app: trace ids, metrics, request log, health and
 * readiness, body parsing, and problem+json for every error. `mount` registers the routes.
 */
export function createApp(opts: AppOptions, mount: (app: Express) => void): ServiceApp {
  const app = express();
  let draining = false;
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  if (opts.trustProxy !== undefined) app.set('trust proxy', opts.trustProxy);

  // First, so health, metrics and every problem carry it too: no browser sniffs a JSON body into HTML.
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  const dependencies = new Dependencies(opts.readiness ?? {}, { graceMs: opts.readinessGraceMs, registry: opts.registry });
  // Liveness: the process answers. The dependencies' last known state is shown, never waited
  // for (a round is started for the next ask), so a hanging database cannot fail the probe.
  app.get('/healthz', (_req, res) => {
    const details = dependencies.snapshot();
    void dependencies.refresh();
    res.json({ status: 'ok', dependencies: details });
  });
  app.get('/readyz', async (_req, res) => {
    if (draining) {
      res.status(503).setHeader('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS));
      res.json({ status: 'draining' });
      return;
    }
    const { ready, checks } = await dependencies.readiness();
    if (!ready) res.setHeader('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS));
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  });
  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', opts.registry.contentType);
    res.send(await opts.registry.metrics());
  });

  app.use(traceMiddleware);
  app.use(httpMetrics(opts.registry));
  app.use(requestLog(opts.logger));
  if (opts.authenticate) app.use(opts.authenticate);
  if (!opts.rawBodies) app.use(jsonBodies(opts.bodyLimitBytes));

  mount(app);

  app.use((req, res) => {
    sendProblem(req, res, new AppError('not_found', `No resource at ${req.method} ${req.path}.`));
  });
  app.use(problemHandler(opts.logger));
  return { app, markDraining: () => (draining = true) };
}
