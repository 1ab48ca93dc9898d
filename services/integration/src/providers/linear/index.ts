import type { TrackerProviderModule } from '../provider.ts';
import { createLinearTrackerClient } from './client.ts';
import { linearHooks } from './hooks.ts';
import { linearApiUrlOf, linearConfigSchema, linearCredentialsSchema, type LinearConfig, type LinearCredentials } from './schema.ts';

/** Linear (GraphQL API): issues in one team, created under an id derived from the Preflight issue, states by stateMap or state type. */
export const linearProvider: TrackerProviderModule<LinearConfig, LinearCredentials> = {
  kind: 'linear',
  configSchema: linearConfigSchema,
  credentialsSchema: linearCredentialsSchema,
  urls: (config) => [linearApiUrlOf(config)],
  client: createLinearTrackerClient,
  hooks: linearHooks,
};
