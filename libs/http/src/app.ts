import express, { type Express, type RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '@preflight/log';
import { AppError } from './errors.ts';
import { jsonBodies } from './json-body.ts';
import { httpMetrics } from './metrics.ts';
import { DEFAULT_RETRY_AFTER_SECONDS, problemHandler, sendProblem } from './problem.ts';
import { traceMiddleware } from './trace.ts';

export type ReadinessCheck = () => Promise<void>;

export interface AppOptions {
  service: string;
  logger: Logger;
  registry: Registry;
  /** Dependencies that must answer before the process takes traffic (`/readyz`). */
  readiness?: Record<string, ReadinessCheck>;
  /** Leave bodies unparsed (the gateway reads them itself, under a deadline, per route). */
  rawBodies?: boolean;
  bodyLimitBytes?: number;
  trustProxy?: boolean | number | string;
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
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (draining) {
      res.status(503).setHeader('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS));
      res.json({ status: 'draining' });
      return;
    }
    const checks: Record<string, string> = {};
    let ok = true;
    await Promise.all(
      Object.entries(opts.readiness ?? {}).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2000);
          checks[name] = 'ok';
        } catch (err) {
          ok = false;
          checks[name] = `unavailable: ${(err as Error).message}`;
        }
      }),
    );
    if (!ok) res.setHeader('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS));
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'unavailable', checks });
  });
  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', opts.registry.contentType);
    res.send(await opts.registry.metrics());
  });

  app.use(traceMiddleware);
  app.use(httpMetrics(opts.registry));
  app.use(requestLog(opts.logger));
  if (!opts.rawBodies) app.use(jsonBodies(opts.bodyLimitBytes));

  mount(app);

  app.use((req, res) => {
    sendProblem(req, res, new AppError('not_found', `No resource at ${req.method} ${req.path}.`));
  });
  app.use(problemHandler(opts.logger));
  return { app, markDraining: () => (draining = true) };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });
}
