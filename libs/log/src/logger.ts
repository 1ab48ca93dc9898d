import { pino, type Logger } from 'pino';
import { currentTrace } from './trace-context.ts';

export type { Logger };

/**
 * Paths never written to a log. Credentials travel in these headers and fields; redacting them
 * here means no call site has to remember to.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.secret',
  '*.key',
  '*.token',
  '*.password',
  'secret',
  'apiKey',
  'adminToken',
];

export function createLogger(service: string, opts: { level?: string } = {}): Logger {
  return pino({
    name: service,
    level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
    // Every line written while a request is in flight carries its trace id.
    mixin() {
      const trace = currentTrace();
      return trace ? { traceId: trace.traceId } : {};
    },
  });
}
