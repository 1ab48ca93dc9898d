export { loadConfig, ConfigError } from './load.ts';
export { env } from './fields.ts';
