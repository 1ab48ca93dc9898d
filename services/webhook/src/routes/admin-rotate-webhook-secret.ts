import { AdminRotateWebhookSecretRequestSchema } from '@preflight/contract';
import { notFound, parseBody, pathId, requireAdmin } from '@preflight/http';
import { newSigningSecret, openSecret, sealSecret, SecretUnavailableError, type SealedSecret } from '@preflight/secret-box';
import { route } from '@preflight/service-kit';
import { secretContext } from '../domain/secret-context.ts';
import { lockWebhook, replaceSecret, sealedSecret } from '../storage/webhooks.ts';
import type { Registration } from './context.ts';

/**
 * POST /admin/v1/webhooks/:id/secret/rotate `{graceHours?}` (admin-api-v1.md): a new signing
 * secret, shown only in this answer; the one it replaces keeps signing deliveries beside it for
 * `graceHours` (0: not at all). Rotating again during a grace drops the older previous secret.
 */
export const register: Registration = (app, { db, keys, logger, signal }) =>
  route(app, 'adminRotateWebhookSecret', async (req, _res, io) => {
    const orgScope = requireAdmin(req);
    const id = pathId(req.params.id, 'webhook');
    // The manifest's schema, but not io.body: that requires a body, and no body rotates with the default grace.
    const { graceHours } = parseBody(AdminRotateWebhookSecretRequestSchema, req.body ?? {});
    const context = secretContext(id);
    const secret = newSigningSecret();
    // The row lock orders concurrent rotations: each keeps the secret current when it runs.
    const rotated = await db.transaction().execute(async (trx) => {
      const row = await lockWebhook(trx, id, orgScope);
      if (!row) return undefined;
      let previous: SealedSecret | null = null;
      if (graceHours > 0) {
        // Re-sealed (rather than copied) so it moves to the primary key like the new secret.
        try {
          previous = sealSecret(keys, openSecret(keys, sealedSecret(row), context), context);
        } catch (err) {
          if (!(err instanceof SecretUnavailableError)) throw err;
          // Rotating is how an operator replaces a secret nobody can open: no grace for it.
          logger.warn({ webhookId: id, keyId: err.keyId }, 'webhook secret being replaced cannot be decrypted; no previous secret kept');
        }
      }
      const expiresAt = await replaceSecret(trx, id, { secret: sealSecret(keys, secret, context), previous, graceHours: previous ? graceHours : 0 });
      return { orgId: row.orgId, expiresAt };
    });
    if (!rotated) throw notFound('webhook', id);
    logger.info({ webhookId: id, orgId: rotated.orgId, graceHours }, 'webhook secret rotated');
    await signal.changed({ orgId: rotated.orgId, endpointId: id });
    io.send({ secret, previousSecretExpiresAt: rotated.expiresAt.toISOString() });
  });
