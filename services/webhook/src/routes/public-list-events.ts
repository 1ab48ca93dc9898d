import { EMITTED_EVENT_TYPES } from '@preflight/contract';
import { requireApiKey } from '@preflight/http';
import { route } from '@preflight/service-kit';
import type { Registration } from './context.ts';

/** GET /api/v1/events (spec 4.6): the names of the events emitted today, in spec 6.2 order. */
export const register: Registration = (app) =>
  route(app, 'listEvents', (req, _res, io) => {
    requireApiKey(req);
    io.send([...EMITTED_EVENT_TYPES]);
  });
