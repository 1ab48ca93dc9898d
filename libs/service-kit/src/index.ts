export { databaseConfigShape, listenConfigShape, kitConfigShape, logConfigShape, LOG_LEVELS, DEFAULT_DATABASE_URL, type KitConfig } from './config.ts';
export { runService, migrateService, type ServiceSpec, type Resources, type Wiring, type RunOptions, type RunningService, type NatsResources } from './run-service.ts';
export { serviceMain } from './main.ts';
export { consumerBase } from './consumers.ts';
export { routesFromFiles, type RouteRegistration, type RouteEntry } from './route-files.ts';
export { migrateConfigShape, loadMigrateConfig } from './migrate-config.ts';
export { route, endpointIo, type EndpointIo, type EndpointHandler } from './route.ts';
export { internalClient, type InternalClient, type InternalClientOptions, type InternalAnswer, type InternalCall, type InternalEndpointOf } from './internal-client.ts';
