import type { TrackerProviderModule } from '../provider.ts';
import { createJiraTrackerClient } from './client.ts';
import { jiraHooks } from './hooks.ts';
import { jiraBaseOf, jiraConfigSchema, jiraCredentialsSchema, type JiraConfig, type JiraCredentials } from './schema.ts';

/** Jira Cloud (REST API v3 through jira.js): issues in one project, statuses through its workflow's transitions. */
export const jiraProvider: TrackerProviderModule<JiraConfig, JiraCredentials> = {
  kind: 'jira',
  configSchema: jiraConfigSchema,
  credentialsSchema: jiraCredentialsSchema,
  urls: (config) => [jiraBaseOf(config)],
  client: createJiraTrackerClient,
  hooks: jiraHooks,
};
