import { AppError, conflict, notFound } from '@preflight/http';
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

/**
 * The endpoint an operator send goes to: 404 when the webhook service does not know it, 409
 * when it is disabled and the send needs it enabled (redeliver, recover; a test does not).
 */
export async function operatorEndpoint(ctx: RouteContext, endpointId: string, needsEnabled: boolean): Promise<EndpointDetail> {
  const endpoint = await askWebhookService(() => ctx.webhooks.endpointById(endpointId), `webhook '${endpointId}'`);
  if (!endpoint) throw notFound('webhook', endpointId);
  if (needsEnabled && !endpoint.isEnabled) {
    throw conflict(`Webhook '${endpointId}' is disabled; re-enable it (POST /admin/v1/webhooks/${endpointId}/enable) first.`, { currentState: 'disabled' });
  }
  return endpoint;
}
