export * from './enums.ts';
export * from './resources.ts';
export * from './requests.ts';
export * from './events.ts';
export { CAMPAIGN_TRANSITIONS, ISSUE_TRANSITIONS } from './workflows.ts';
export { buildOpenApiDocument, responseSchemaFor } from './openapi.ts';
export * from './internal.ts';
export * from './manifest/index.ts';
