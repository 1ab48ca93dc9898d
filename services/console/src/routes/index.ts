import { endpointsOwnedBy } from '@preflight/contract';
import { routesFromFiles } from '@preflight/service-kit';
import type { RouteContext } from './context.ts';

// The members API (libs/contract manifest/console.ts). The pages under /console are web/router.ts's.
/** One route file per manifest entry this service owns (libs/contract `routeFileOf` names it). */
export const registrations = await routesFromFiles<RouteContext>(endpointsOwnedBy('console'), (file) => import(`./${file}.ts`));
