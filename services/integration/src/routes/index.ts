import { endpointsOwnedBy } from '@preflight/contract';
import { routesFromFiles } from '@preflight/service-kit';
import type { RouteContext } from './context.ts';

// One route file per manifest entry this service owns (libs/contract `routeFileOf` names it).
const entries = endpointsOwnedBy('integration');
const load = (file: string) => import(`./${file}.ts`);

/** Admin routes read JSON bodies (mounted under jsonBodies in app.ts). */
export const adminRegistrations = await routesFromFiles<RouteContext>(entries.filter((e) => e.auth === 'admin'), load);

/** The trackers' hooks read their raw bodies; only the gateway's token reaches them (routesFromFiles). */
export const publicRegistrations = await routesFromFiles<RouteContext>(entries.filter((e) => e.auth !== 'admin'), load);
