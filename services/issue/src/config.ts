import { eventsConfigShape } from '@preflight/bus';
import { env, loadConfig } from '@preflight/config';
import { databaseConfigShape, listenConfigShape, logConfigShape } from '@preflight/service-kit';

/** Environment of the issue service, read once at start (docs/development-reference.md, "Ports, URLs"). */
export const issueConfigShape = {
  // HTTP
  ISSUE_PORT: env.port(8082),

  // Database: the service owns one schema and nothing else.
  ...databaseConfigShape('issue'),

  // The campaign service, read through when the campaign directory misses.
  CAMPAIGN_URL: env.url(['http', 'https'], 'http://127.0.0.1:8081'),

  // Domain events: NATS JetStream. The service makes sure the stream exists at start (with the
  // same settings as the campaign service, idempotently), publishes its events through the
  // transactional outbox and feeds the campaign directory from campaign events with the
  // durable consumer `issue-directory`.
  ...eventsConfigShape,

  ...logConfigShape,
  ...listenConfigShape,
};

export type IssueConfig = ReturnType<typeof loadIssueConfig>;

export function loadIssueConfig(source: Record<string, string | undefined> = process.env, exitOnError = true) {
  return loadConfig(issueConfigShape, { source, exitOnError });
}
