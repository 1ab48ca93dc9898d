export { tracingOn, setTracingOn, preflightTracer, activeTraceparent, contextFromTraceparent } from './context.ts';
export { tracingSettings, type TracingSettings } from './settings.ts';
export { startTelemetry, instrumentations, type Telemetry } from './start.ts';
