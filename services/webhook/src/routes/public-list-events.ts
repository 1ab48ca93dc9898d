import { EMITTED_EVENT_TYPES, type ResponseOf } from '@preflight/contract';
import { requireApiKey, sendJson } from '@preflight/http';
import type { Registration } from './context.ts';

/** GET /api/v1/events (spec 4.6): the names of the events emitted today, in spec 6.2 order. */
export const register: Registration = (app) => {
  app.get('/api/v1/events', (req, res) => {
    requireApiKey(req);
    sendJson(req, res, 200, [...EMITTED_EVENT_TYPES] satisfies ResponseOf<'listEvents'>);
  });
};
