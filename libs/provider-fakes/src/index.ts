export { startFakeServer, type Behaviour, type FakeReply, type FakeRoutes, type FakeServer, type RecordedRequest } from './fake-server.ts';
export * from './slack.ts';
export * from './teams.ts';
export * from './github.ts';
export * from './jira.ts';
export * from './linear.ts';
