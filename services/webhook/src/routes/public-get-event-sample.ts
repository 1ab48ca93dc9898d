import type { ResponseOf } from '@preflight/contract';
import { sampleEnvelope } from '@preflight/events';
import { AppError, requireApiKey, sendJson } from '@preflight/http';
import type { Registration } from './context.ts';

/**
 * GET /api/v1/events/:eventKey/sample (spec 4.7): the envelope libs/events builds for real
 * deliveries, from representative data. Reserved (never emitted) and unknown names are 404.
 */
export const register: Registration = (app) => {
  app.get('/api/v1/events/:eventKey/sample', (req, res) => {
    requireApiKey(req);
    const eventKey = req.params.eventKey;
    const envelope = sampleEnvelope(eventKey);
    if (!envelope) throw new AppError('not_found', `No emitted event is named '${eventKey}'; GET /api/v1/events lists them.`);
    sendJson(req, res, 200, envelope satisfies ResponseOf<'getEventSample'>);
  });
};
