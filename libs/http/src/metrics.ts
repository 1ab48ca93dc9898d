import type { RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per process, labelled with the service, with Node's default metrics. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * Request rate, errors and latency per route. The route label is the matched route pattern
 * (never the raw path, which would explode cardinality with ids).
 */
export function httpMetrics(registry: Registry): RequestHandler {
  const requests = new Counter({
    name: 'http_server_requests_total',
    help: 'HTTP requests handled, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const route = res.locals.routeLabel ?? (req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched');
      const labels = { method: req.method, route, status: String(res.statusCode) };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}
