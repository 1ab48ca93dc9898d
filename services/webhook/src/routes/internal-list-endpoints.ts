import type { ResponseOf } from '@preflight/contract';
import { pathId } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { endpointsFor } from '../storage/webhooks.ts';
import { endpointSecretsOrUnsignable, includesUnsignable } from '../views/endpoint-secrets.ts';
import type { Registration } from './context.ts';

/**
 * GET /internal/v1/orgs/:orgId/endpoints?eventType=X[&unsignable=include]: for the delivery
 * service, the enabled endpoints of an organisation that receive X, with their secrets
 * decrypted (the previous one too during a rotation's grace). The gateway never routes
 * /internal. An endpoint whose secret no configured key opens (its key dropped from
 * WEBHOOK_SECRET_KEYS, or this replica given the wrong one) is an error, logged and counted
 * (`secret_decrypt_failures_total`), and comes as `secretUnavailable: true` without a secret,
 * so the delivery service holds its deliveries until the key is back; a caller that does not
 * ask for that (a delivery service from before it) gets the endpoint left out, as before.
 */
export const register: Registration = (app, { db, keys, logger, secretFailures }) =>
  route(app, 'internalListEndpoints', async (req, _res, io) => {
    const orgId = pathId(req.params.orgId, 'organization');
    const query = io.query;
    const includeUnsignable = includesUnsignable(query);
    const rows = await endpointsFor(db, orgId, query.eventType);
    const endpoints: ResponseOf<'internalListEndpoints'> = [];
    for (const row of rows) {
      const secrets = endpointSecretsOrUnsignable(keys, row, logger, { includeUnsignable, failed: secretFailures });
      if (secrets) endpoints.push({ id: row.id, url: row.url, ...secrets, events: row.events });
    }
    io.send(endpoints);
  });
