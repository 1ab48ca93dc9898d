import { sampleEnvelope } from '@preflight/events';
import { AppError, requireApiKey } from '@preflight/http';
import { route } from '@preflight/service-kit';
import type { Registration } from './context.ts';

/**
 * GET /api/v1/events/:eventKey/sample (spec 4.7): the envelope libs/events builds for real
 * deliveries, from representative data. Reserved (never emitted) and unknown names are 404.
 */
export const register: Registration = (app) =>
  route(app, 'getEventSample', (req, _res, io) => {
    requireApiKey(req);
    const eventKey = String(req.params.eventKey);
    const envelope = sampleEnvelope(eventKey);
    if (!envelope) throw new AppError('not_found', `No emitted event is named '${eventKey}'; GET /api/v1/events lists them.`);
    io.send(envelope);
  });
