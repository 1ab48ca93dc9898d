import { z } from 'zod';
import { EMITTED_EVENT_TYPES, RESERVED_EVENT_TYPES } from '@preflight/contract';
import { parseQuery, pathId, sendJson } from '@preflight/http';
import { SecretUnavailableError } from '@preflight/secret-box';
import { endpointsFor } from '../storage/webhooks.ts';
import { openEndpointSecrets } from '../views/endpoint-secrets.ts';
import type { Registration } from './context.ts';

const EndpointQuerySchema = z.object({
  eventType: z.enum([...EMITTED_EVENT_TYPES, ...RESERVED_EVENT_TYPES], {
    error: (issue) => (issue.input === undefined ? 'eventType is required.' : 'eventType must be an event name.'),
  }),
});

/**
 * GET /internal/v1/orgs/:orgId/endpoints?eventType=X: for the delivery service, the enabled
 * endpoints of an organisation that receive X, with their secrets decrypted (the previous one
 * too during a rotation's grace). The gateway never routes /internal, so there is no caller to
 * check. An endpoint whose secret cannot be decrypted (its key was dropped from
 * WEBHOOK_SECRET_KEYS) is left out and logged as an error, so one misconfigured row does not
 * hold up deliveries to the others.
 */
export const internalListEndpoints: Registration = (app, { db, keys, logger }) => {
  app.get('/internal/v1/orgs/:orgId/endpoints', async (req, res) => {
    const orgId = pathId(req.params.orgId, 'organization');
    const { eventType } = parseQuery(EndpointQuerySchema, req.query);
    const rows = await endpointsFor(db, orgId, eventType);
    const endpoints = [];
    for (const row of rows) {
      try {
        const { secret, previousSecret, previousSecretExpiresAt } = openEndpointSecrets(keys, row, logger);
        endpoints.push({ id: row.id, url: row.url, secret, previousSecret, previousSecretExpiresAt, events: row.events });
      } catch (err) {
        if (!(err instanceof SecretUnavailableError)) throw err;
        logger.error({ webhookId: row.id, keyId: err.keyId }, 'webhook secret cannot be decrypted; endpoint skipped');
      }
    }
    sendJson(req, res, 200, endpoints);
  });
};
