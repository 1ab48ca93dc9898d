export { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_NATS_URL, runId, isolatedName, dropSchemas } from './isolation.ts';
export { eventually } from './eventually.ts';
export { freePort } from './ports.ts';
export { deleteStreams } from './streams.ts';
export { eventPublisher, type Publisher } from './event-publisher.ts';
export { SERVICE_NAMES, testServiceKeys, serviceAuthConfig, serviceAuthHeaders, testServiceToken, testSigningKey, testTokens } from './service-auth.ts';
export { serviceCall, type Reply, type CallOptions } from './service-call.ts';
export { OPERATOR, memberOf, type MemberCaller } from './callers.ts';
export { outboxTypes, schemaRows } from './schema-rows.ts';
