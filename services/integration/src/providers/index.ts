import { githubProvider } from './github/index.ts';
import { jiraProvider } from './jira/index.ts';
import { linearProvider } from './linear/index.ts';
import type { ChatKind, ChatProviderModule, ConnectionKind, TrackerKind, TrackerProviderModule } from './provider.ts';
import { slackProvider } from './slack/index.ts';
import { teamsProvider } from './teams/index.ts';

// Each module is typed by its own config; callers validate with its schemas before calling it.
export const CHAT_PROVIDERS: Record<ChatKind, ChatProviderModule<any, any>> = { slack: slackProvider, teams: teamsProvider };
export const TRACKER_PROVIDERS: Record<TrackerKind, TrackerProviderModule<any, any>> = { github: githubProvider, jira: jiraProvider, linear: linearProvider };

export const isTrackerKind = (kind: ConnectionKind): kind is TrackerKind => Object.hasOwn(TRACKER_PROVIDERS, kind);

export function providerOf(kind: ConnectionKind): ChatProviderModule | TrackerProviderModule {
  return isTrackerKind(kind) ? TRACKER_PROVIDERS[kind] : CHAT_PROVIDERS[kind];
}
