import { conflict, notFound, pathId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { endpointById } from '../storage/webhooks.ts';
import { endpointSecretsOrUnsignable, includesUnsignable } from '../views/endpoint-secrets.ts';
import type { Registration } from './context.ts';

/**
 * GET /internal/v1/webhooks/:id/endpoint[?unsignable=include]: one endpoint with its secrets
 * whatever its state or filter, for the delivery service's operator sends (test events,
 * redeliveries, recovery): `{id, orgId, url, events, isEnabled, secret, previousSecret,
 * previousSecretExpiresAt}`, 404 for an unknown, deleted or malformed id. A secret this
 * deployment's keys cannot open is logged as an error and answered `secretUnavailable: true`
 * with no secret when the caller asks for that (the send then waits for the key), else 409.
 */
export const register: Registration = (app, { db, keys, logger, secretFailures }) =>
  route(app, 'internalGetEndpoint', async (req, _res, io) => {
    const id = pathId(req.params.id, 'webhook');
    const row = await endpointById(db, id);
    if (!row) throw notFound('webhook', id);
    const secrets = endpointSecretsOrUnsignable(keys, row, logger, { includeUnsignable: includesUnsignable(req.query), failed: secretFailures });
    if (!secrets) throw conflict("the endpoint's secret cannot be decrypted with this deployment's keys");
    io.send({ id, orgId: row.orgId, url: row.url, events: row.events, isEnabled: row.isEnabled, ...secrets });
  });
