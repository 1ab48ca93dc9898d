import type { Logger } from '@preflight/log';
import { openSecret, SecretUnavailableError, type KeyRing } from '@preflight/secret-box';
import { secretContext } from '../domain/secret-context.ts';
import { sealedPreviousSecret, sealedSecret, type EndpointRow } from '../storage/webhooks.ts';

/** An endpoint's signing secrets as the delivery service receives them (README, "Internal API"). */
export interface EndpointSecrets {
  secret: string;
  /** Only during a rotation's grace period; null otherwise. */
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
}

/**
 * Opens the current secret, and the previous one while its grace lasts. Throws
 * SecretUnavailableError when the current one cannot be opened (the caller decides what the
 * endpoint then is); a previous secret that cannot be opened is logged and left out, so
 * deliveries go on signed with the current secret alone.
 */
export function openEndpointSecrets(keys: KeyRing, row: EndpointRow, logger: Logger): EndpointSecrets {
  const context = secretContext(row.id);
  const secret = openSecret(keys, sealedSecret(row), context);
  const sealedPrevious = row.previous_live ? sealedPreviousSecret(row) : null;
  if (!sealedPrevious) return { secret, previousSecret: null, previousSecretExpiresAt: null };
  try {
    return { secret, previousSecret: openSecret(keys, sealedPrevious, context), previousSecretExpiresAt: row.previous_secret_expires_at!.toISOString() };
  } catch (err) {
    if (!(err instanceof SecretUnavailableError)) throw err;
    logger.error({ webhookId: row.id, keyId: err.keyId }, 'previous webhook secret cannot be decrypted; signing with the current one only');
    return { secret, previousSecret: null, previousSecretExpiresAt: null };
  }
}
