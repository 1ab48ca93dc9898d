export { loadConfig, ConfigError } from './load.ts';
export { env } from './fields.ts';
export { applyRuntimeFlags, RUNTIME_V8_FLAGS } from './runtime-flags.ts';
export { loadSourceMapsNow } from './source-maps.ts';
