import type { TrackerProviderModule } from '../provider.ts';
import { githubClient } from './client.ts';
import { githubHooks } from './hooks.ts';
import { apiBaseOf, githubConfigSchema, githubCredentialsSchema, type GithubConfig, type GithubCredentials } from './schema.ts';

export type { GithubConfig, GithubCredentials } from './schema.ts';

/** GitHub Issues (github.com or GitHub Enterprise Server through `apiBaseUrl`) over the REST API. */
export const githubProvider: TrackerProviderModule<GithubConfig, GithubCredentials> = {
  kind: 'github',
  configSchema: githubConfigSchema,
  credentialsSchema: githubCredentialsSchema,
  urls: (config) => [apiBaseOf(config)],
  client: githubClient,
  hooks: githubHooks,
};
