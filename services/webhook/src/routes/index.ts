import { onlyFrom } from '@preflight/service-auth';
import { adminCreateWebhook } from './admin-create-webhook.ts';
import { adminEnableWebhook } from './admin-enable-webhook.ts';
import { adminListWebhooks } from './admin-list-webhooks.ts';
import { adminRotateSecret } from './admin-rotate-secret.ts';
import type { Registration } from './context.ts';
import { internalDeliveryOutcome } from './internal-delivery-outcome.ts';
import { internalDeliveryOutcomes } from './internal-delivery-outcomes.ts';
import { internalGetEndpoint } from './internal-get-endpoint.ts';
import { internalGetWebhook } from './internal-get-webhook.ts';
import { internalListEndpoints } from './internal-list-endpoints.ts';
import { publicCreateWebhook } from './public-create-webhook.ts';
import { publicDeleteWebhook } from './public-delete-webhook.ts';
import { publicEventSample } from './public-event-sample.ts';
import { publicListEvents } from './public-list-events.ts';
import { publicListWebhooks } from './public-list-webhooks.ts';

export const registrations: Registration[] = [
  publicListEvents,
  publicEventSample,
  publicListWebhooks,
  publicCreateWebhook,
  publicDeleteWebhook,
  adminCreateWebhook,
  adminListWebhooks,
  adminEnableWebhook,
  adminRotateSecret,
  // Decrypted signing secrets (the endpoint list and one endpoint) and the outcome reports: the
  // delivery service's alone, whichever other service holds a valid token.
  ...[internalListEndpoints, internalGetWebhook, internalGetEndpoint, internalDeliveryOutcome, internalDeliveryOutcomes].map((r) => onlyFrom(['delivery'], r)),
];
