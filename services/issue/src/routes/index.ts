import { endpointsOwnedBy } from '@preflight/contract';
import { routesFromFiles } from '@preflight/service-kit';
import type { RouteContext } from './context.ts';

/** One route file per manifest entry this service owns (libs/contract `routeFileOf` names it). */
export const registrations = await routesFromFiles<RouteContext>(endpointsOwnedBy('issue'), (file) => import(`./${file}.ts`));
