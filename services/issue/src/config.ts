import { eventsConfigShape } from '@preflight/bus';
import { env, loadConfig } from '@preflight/config';

/** Environment of the issue service, read once at start (docs/development.md, "Ports, URLs"). */
export const issueConfigShape = {
  // HTTP
  ISSUE_PORT: env.port(8082),

  // Database: the service owns one schema and nothing else.
  DATABASE_URL: env.url(['postgres', 'postgresql'], 'postgres://postgres@127.0.0.1:5432/preflight'),
  DB_SCHEMA: env.identifier('issue'),
  DB_POOL_MAX: env.int(10, { min: 1, max: 100 }),
  // Off where a Helm hook Job runs `main.ts migrate` before the rollout.
  MIGRATE_ON_START: env.bool(true),

  // The campaign service, read through when the campaign directory misses.
  CAMPAIGN_URL: env.url(['http', 'https'], 'http://127.0.0.1:8081'),

  // Domain events: NATS JetStream. The service makes sure the stream exists at start (with the
  // same settings as the campaign service, idempotently), publishes its events through the
  // transactional outbox and feeds the campaign directory from campaign events with the
  // durable consumer `issue-directory`.
  ...eventsConfigShape,

  LOG_LEVEL: env.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
};

export type IssueConfig = ReturnType<typeof loadIssueConfig>;

export function loadIssueConfig(source: Record<string, string | undefined> = process.env, exitOnError = true) {
  return loadConfig(issueConfigShape, { source, exitOnError });
}
