import { conflict, notFound, pathId, sendJson } from '@preflight/http';
import { SecretUnavailableError } from '@preflight/secret-box';
import { endpointById } from '../storage/webhooks.ts';
import { openEndpointSecrets } from '../views/endpoint-secrets.ts';
import type { Registration } from './context.ts';

/**
 * GET /internal/v1/webhooks/:id/endpoint: one endpoint with its secrets whatever its state or
 * filter, for the delivery service's operator sends (test events, redeliveries, recovery):
 * `{id, orgId, url, events, isEnabled, secret, previousSecret, previousSecretExpiresAt}`, 404
 * for an unknown, deleted or malformed id. A secret this deployment's keys cannot open is a
 * 409 (the row is there but unusable until an operator restores the key or rotates the secret),
 * logged as an error like the endpoint list logs it.
 */
export const internalGetEndpoint: Registration = (app, { db, keys, logger }) => {
  app.get('/internal/v1/webhooks/:id/endpoint', async (req, res) => {
    const id = pathId(req.params.id, 'webhook');
    const row = await endpointById(db, id);
    if (!row) throw notFound('webhook', id);
    let secrets;
    try {
      secrets = openEndpointSecrets(keys, row, logger);
    } catch (err) {
      if (!(err instanceof SecretUnavailableError)) throw err;
      logger.error({ webhookId: id, keyId: err.keyId }, 'webhook secret cannot be decrypted; endpoint not served');
      throw conflict("the endpoint's secret cannot be decrypted with this deployment's keys");
    }
    sendJson(req, res, 200, { id, orgId: row.org_id, url: row.url, events: row.events, isEnabled: row.is_enabled, ...secrets });
  });
};
