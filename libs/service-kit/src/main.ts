import { applyRuntimeFlags, loadConfig as loadEnv, loadSourceMapsNow } from '@preflight/config';
import { exitOnFatalErrors } from '@preflight/http';
import { createLogger, type Logger } from '@preflight/log';
import { serviceAuthConfigShape, serviceSigningConfigShape } from '@preflight/service-auth';
import type { Telemetry } from '@preflight/telemetry';
import { kitConfigShape, type KitConfig } from './config.ts';
import { loadMigrateConfig } from './migrate-config.ts';
import { migrateService, runService, type ServiceSpec } from './run-service.ts';

/**
 * A service's whole `main.ts`: runtime flags, the bundle's source map, then `main.ts migrate`
 * reads only the database and log settings (migrate-config.ts), migrates and exits; otherwise
 * its configuration (a bad value stops it with one line), a logger, fatal-error exits;
 * `main.ts <name> …` runs `commands[name]` (with the configuration and the arguments after its
 * name) and exits with the code it answers, anything else serves until SIGTERM. `beforeStart`
 * warns about settings.
 * `telemetry` (started by `main.ts` before anything else was imported) is flushed last at shutdown.
 */
export async function serviceMain<DB, C extends KitConfig, H extends object>(
  spec: ServiceSpec<DB, C, H>,
  loadConfig: () => C,
  opts: {
    runtimeFlags?: boolean;
    beforeStart?: (config: C, logger: Logger) => void;
    telemetry?: Telemetry;
    commands?: Record<string, (config: C, args: string[]) => Promise<number>>;
  } = {},
): Promise<void> {
  if (opts.runtimeFlags ?? true) applyRuntimeFlags();
  loadSourceMapsNow();
  if (process.argv[2] === 'migrate') {
    // Only the database and log settings: the hook Job carries no other credential (the chart's
    // migration Job), so the service's own configuration is never read here.
    const config = loadMigrateConfig(spec.schema ?? spec.name);
    const logger = createLogger(spec.name, { level: config.LOG_LEVEL });
    exitOnFatalErrors(logger);
    await migrateService(spec, config, logger);
    logger.info({ schema: config.DB_SCHEMA }, 'migrated');
    await opts.telemetry?.shutdown();
    process.exit(0);
  }
  // The kit's own settings first: a service config that names one of them wins.
  const config = { ...loadEnv(kitConfigShape), ...loadConfig() };
  const logger = createLogger(spec.name, { level: config.LOG_LEVEL });
  exitOnFatalErrors(logger);
  const command = process.argv[2] !== undefined ? opts.commands?.[process.argv[2]] : undefined;
  if (command) {
    const code = await command(config, process.argv.slice(3));
    await opts.telemetry?.shutdown();
    process.exit(code);
  }
  if (opts.telemetry?.enabled) logger.info('tracing on: spans exported per OTEL_* settings (docs/operations.md, "Reading a trace")');
  opts.beforeStart?.(config, logger);
  // Read here, not by the service's config: a command (`reencrypt-secrets`) needs no keys.
  const auth = loadEnv(spec.peers === false ? serviceSigningConfigShape(spec.name) : serviceAuthConfigShape(spec.name));
  await runService(spec, { config: { ...config, ...auth }, logger, host: config.BIND_HOST, ...(opts.telemetry ? { finally: [() => opts.telemetry!.shutdown()] } : {}) });
}
