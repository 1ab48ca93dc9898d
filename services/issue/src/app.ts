import { startConsumer, startOutboxRelay, type OutboxRelay } from '@preflight/bus';
import { ownerSubjects } from '@preflight/events';
import { consumerBase, migrateService, runService, type RunOptions, type RunningService, type ServiceSpec } from '@preflight/service-kit';
import type { Logger } from '@preflight/log';
import type { IssueConfig } from './config.ts';
import { createCampaignClient } from './directory/campaign-client.ts';
import { createCampaignDirectory } from './directory/campaign-directory.ts';
import { DIRECTORY_CONSUMER, campaignEventHandler } from './directory/campaign-events.ts';
import { migrations } from './migrations/index.ts';
import { registrations } from './routes/index.ts';
import { issueFiling } from './storage/issue-filing.ts';
import type { IssueDatabase } from './storage/schema.ts';

/** The outbox relay of a running service, for tests of the crash window between commit and publish. */
export interface RelayHandle {
  /** Stops publishing (as a crashed relay would); committed events wait in the outbox. */
  stop(): Promise<void>;
  /** Starts a fresh relay if none is running: it publishes whatever the outbox holds. */
  start(): void;
}

export type RunningIssueService = RunningService<IssueDatabase, { relay: RelayHandle }>;

/**
 * The issue service: its outbox relay, the campaign directory (fed by campaign events through
 * the durable consumer, read through to the campaign service on a miss) and its routes.
 * Shutdown stops the consumer and the relay before NATS and the pool close.
 */
export const issueService: ServiceSpec<IssueDatabase, IssueConfig, { relay: RelayHandle }> = {
  name: 'issue',
  migrations,
  port: (config) => config.ISSUE_PORT,
  // The integration service reads issues and changes their status for the trackers.
  peers: ['integration'],
  events: true,
  async wire(resources) {
    const { config, logger, database, registry, nats, tokens } = resources;
    const { js } = nats!;
    const prefix = config.EVENTS_SUBJECT_PREFIX;
    const campaigns = createCampaignClient(config.CAMPAIGN_URL, tokens);
    let relay: OutboxRelay | undefined = startOutboxRelay({ db: database.db, pool: database.pool, schema: database.schema, js, logger, registry });
    const stopRelay = async () => {
      const current = relay;
      relay = undefined;
      await current?.stop();
    };
    const consumer = await startConsumer({
      ...consumerBase(resources),
      durable: DIRECTORY_CONSUMER,
      // One subject: NATS before 2.10 allows one filter per consumer.
      filterSubjects: [ownerSubjects('campaign', prefix)],
      concurrency: 4,
      handler: campaignEventHandler(prefix, logger),
    });
    const directory = createCampaignDirectory(database.db, campaigns, logger);
    const events = { subjectPrefix: prefix };
    const filing = issueFiling(database.db, events);
    return {
      mount: (app) => {
        for (const register of registrations) register(app, { db: database.db, directory, events, filing });
      },
      releases: [() => consumer.stop(), stopRelay, () => campaigns.close()],
      handle: {
        relay: {
          stop: stopRelay,
          start() {
            relay ??= startOutboxRelay({ db: database.db, pool: database.pool, schema: database.schema, js, logger, registry });
          },
        },
      },
    };
  },
};

export const startIssueService = (opts: RunOptions<IssueConfig>): Promise<RunningIssueService> => runService(issueService, opts);

/** `main.ts migrate`: brings the schema up to date and returns. */
export const migrateIssueSchema = (config: IssueConfig, logger: Logger): Promise<void> => migrateService(issueService, config, logger);
