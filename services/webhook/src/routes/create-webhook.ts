import { randomUUID } from 'node:crypto';
import { CreateWebhookRequestSchema, type CreateWebhookResponse } from '@preflight/contract';
import { AppError, parseBody, validationFailed, type FieldErrors } from '@preflight/http';
import { isSelectableEventName, unknownEventMessage } from '../domain/event-filter.ts';
import { newSigningSecret, sealSecret } from '@preflight/secret-box';
import { secretContext } from '../domain/secret-context.ts';
import type { WebhookSource } from '../storage/schema.ts';
import { insertWebhook } from '../storage/webhooks.ts';
import type { RouteContext } from './context.ts';

/**
 * The one creation path, shared by POST /api/v1/webhooks and the settings page's
 * POST /admin/v1/organizations/:orgId/webhooks (spec section 1 rule 3: the same kind of
 * endpoint, only `source` differs). Checks the contract's shape, the event names and the URL
 * rules, answering every problem at once (422: so the routes hand it the raw body, not io.body,
 * which would answer the shape's problems alone), then inserts. The plaintext secret leaves
 * only in the returned body.
 */
export async function createWebhook(ctx: RouteContext, rawBody: unknown, orgId: string, source: WebhookSource): Promise<CreateWebhookResponse> {
  const errors: FieldErrors = {};
  // Report by position in the request as sent, like the schema's own `events.N` errors.
  const sent = (rawBody as { events?: unknown } | undefined)?.events;
  if (Array.isArray(sent)) {
    sent.forEach((name, i) => {
      const trimmed = String(name).trim();
      if (!isSelectableEventName(trimmed)) errors[`events.${i}`] = [unknownEventMessage(trimmed)];
    });
  }
  let body;
  try {
    body = parseBody(CreateWebhookRequestSchema, rawBody);
  } catch (err) {
    // A client gets every field problem in one answer, the shape's and the event names' alike.
    if (err instanceof AppError && err.code === 'validation') throw validationFailed({ ...errors, ...err.extra.errors });
    throw err;
  }
  const urlProblems = await ctx.targets.check(body.url);
  if (urlProblems.length > 0) errors.url = urlProblems;
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  const id = randomUUID();
  const secret = newSigningSecret();
  const row = await insertWebhook(ctx.db, {
    id,
    orgId,
    name: body.name,
    url: body.url,
    events: body.events,
    source,
    secret: sealSecret(ctx.keys, secret, secretContext(id)),
  });
  ctx.logger.info({ webhookId: row.id, orgId, source, events: row.events.length }, 'webhook created');
  await ctx.signal.changed({ orgId, endpointId: row.id });
  return { id: row.id, url: row.url, events: row.events, secret };
}
