import { AppError, conflict, inOrgScope, notFound } from '@preflight/http';
import { WebhookServiceUnavailable, type EndpointDetail } from '../clients/webhook-client.ts';
import type { RouteContext } from './context.ts';

/** Runs a question to the webhook service; its being unreachable is a 503 the caller may retry. */
export async function askWebhookService<T>(question: () => Promise<T>, what: string): Promise<T> {
  try {
    return await question();
  } catch (err) {
    if (!(err instanceof WebhookServiceUnavailable)) throw err;
    throw new AppError('dependency_unavailable', `The webhook service is unavailable, so ${what} could not be checked; retry shortly.`, { headers: { 'Retry-After': '2' } });
  }
}

/** The organisation of an endpoint the webhook service knows; undefined for an unknown or deleted one. */
export async function endpointOrg(ctx: RouteContext, endpointId: string): Promise<string | undefined> {
  return askWebhookService(() => ctx.webhooks.webhookOrg(endpointId), `webhook '${endpointId}'`);
}

/**
 * For a console member (`orgScope` set), 404 unless the endpoint is of their organisation, as
 * for an unknown id; nothing for the operator. Attempts do not carry the organisation: the
 * webhook service says whose an endpoint is, so a deleted endpoint is no member's.
 */
export async function requireOwnEndpoint(ctx: RouteContext, endpointId: string, orgScope: string | undefined): Promise<void> {
  if (orgScope !== undefined && (await endpointOrg(ctx, endpointId)) !== orgScope) throw notFound('webhook', endpointId);
}

/**
 * The endpoint an operator (or member) send goes to: 404 when the webhook service does not know
 * it or it is outside `orgScope`, 409 when it is disabled and the send needs it enabled
 * (redeliver, recover; a test does not).
 */
export async function operatorEndpoint(ctx: RouteContext, endpointId: string, needsEnabled: boolean, orgScope: string | undefined): Promise<EndpointDetail> {
  const endpoint = await askWebhookService(() => ctx.webhooks.endpointById(endpointId), `webhook '${endpointId}'`);
  if (!endpoint || !inOrgScope(orgScope, endpoint.orgId)) throw notFound('webhook', endpointId);
  if (needsEnabled && !endpoint.isEnabled) {
    throw conflict(`Webhook '${endpointId}' is disabled; re-enable it (POST /admin/v1/webhooks/${endpointId}/enable) first.`, { currentState: 'disabled' });
  }
  return endpoint;
}
