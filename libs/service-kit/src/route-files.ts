import type { Express } from 'express';
import { onlyFrom } from '@preflight/service-auth';

/** A route registration: adds one endpoint's handlers to the app, with the service's context. */
export type RouteRegistration<C> = (app: Express, ctx: C) => void;

/** What the kit needs of a manifest entry (libs/contract `endpointsOwnedBy`, with `routeFileOf` its file). */
export interface RouteEntry {
  id: string;
  file: string;
  auth: string;
  callers?: readonly string[];
}

/**
 * A service's routes, one per manifest entry it owns, each the `register` export of the entry's
 * route file. `load` is the service's `(file) => import(`./${file}.ts`)`, written in its routes
 * folder so that bundlers include every route file. An internal entry's route answers only the
 * callers the manifest names; an entry open to anyone (`auth: 'none'`, the trackers' hooks) only
 * the gateway, whose token is what says the request came through the public ingress. A missing
 * file or export fails the start, naming the entry.
 */
export async function routesFromFiles<C>(entries: readonly RouteEntry[], load: (file: string) => Promise<unknown>): Promise<Array<RouteRegistration<C>>> {
  return Promise.all(
    entries.map(async (entry) => {
      const module = (await load(entry.file).catch((err: unknown) => {
        throw new Error(`route file ${entry.file}.ts of the manifest entry ${entry.id} could not be loaded`, { cause: err });
      })) as { register?: unknown };
      if (typeof module.register !== 'function') throw new Error(`route file ${entry.file}.ts exports no register function for the manifest entry ${entry.id}`);
      const register = module.register as RouteRegistration<C>;
      const callers = entry.auth === 'internal' ? entry.callers : entry.auth === 'none' ? ['gateway'] : undefined;
      return callers ? onlyFrom(callers, register) : register;
    }),
  );
}
