export { createLogger, type Logger } from './logger.ts';
export { traceStore, currentTrace, type TraceContext } from './trace-context.ts';
