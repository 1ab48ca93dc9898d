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
 * What the delivery service gets for an endpoint whose current secret no configured key opens:
 * the endpoint, no secret. Its deliveries wait for the key (they are never sent unsigned, and
 * never dropped); leaving the endpoint out had made them vanish silently (issue 22, finding 8).
 */
export interface UnsignableSecrets {
  secret: null;
  previousSecret: null;
  previousSecretExpiresAt: null;
  secretUnavailable: true;
}

/** Counts each secret no configured key opened, by which one (`secret_decrypt_failures_total`). */
export type DecryptFailureCounter = (kind: 'signing-secret' | 'previous-signing-secret') => void;

/** The query that asks for unsignable endpoints rather than leaving them out (an older delivery service does not send it). */
export const includesUnsignable = (query: Record<string, unknown>): boolean => query.unsignable === 'include';

/**
 * Opens the current secret, and the previous one while its grace lasts. Throws
 * SecretUnavailableError when the current one cannot be opened (the caller decides what the
 * endpoint then is); a previous secret that cannot be opened is logged and left out, so
 * deliveries go on signed with the current secret alone.
 */
export function openEndpointSecrets(keys: KeyRing, row: EndpointRow, logger: Logger, failed?: DecryptFailureCounter): EndpointSecrets {
  const context = secretContext(row.id);
  let secret: string;
  try {
    secret = openSecret(keys, sealedSecret(row), context);
  } catch (err) {
    if (err instanceof SecretUnavailableError) failed?.('signing-secret');
    throw err;
  }
  const sealedPrevious = row.previousLive ? sealedPreviousSecret(row) : null;
  if (!sealedPrevious) return { secret, previousSecret: null, previousSecretExpiresAt: null };
  try {
    return { secret, previousSecret: openSecret(keys, sealedPrevious, context), previousSecretExpiresAt: row.previousSecretExpiresAt!.toISOString() };
  } catch (err) {
    if (!(err instanceof SecretUnavailableError)) throw err;
    failed?.('previous-signing-secret');
    logger.error({ webhookId: row.id, keyId: err.keyId }, 'previous webhook secret cannot be decrypted; signing with the current one only');
    return { secret, previousSecret: null, previousSecretExpiresAt: null };
  }
}

/**
 * `openEndpointSecrets`, or, when the current secret cannot be opened, the unsignable answer
 * (logged as an error: an operator must restore the key, or rotate the secret). Undefined then
 * when the caller did not ask for unsignable endpoints.
 */
export function endpointSecretsOrUnsignable(
  keys: KeyRing,
  row: EndpointRow,
  logger: Logger,
  opts: { includeUnsignable: boolean; failed?: DecryptFailureCounter | undefined },
): EndpointSecrets | UnsignableSecrets | undefined {
  try {
    return openEndpointSecrets(keys, row, logger, opts.failed);
  } catch (err) {
    if (!(err instanceof SecretUnavailableError)) throw err;
    const fields = { webhookId: row.id, orgId: row.orgId, keyId: err.keyId };
    if (!opts.includeUnsignable) {
      logger.error(fields, 'webhook secret cannot be decrypted; endpoint left out for a caller that does not take unsignable endpoints');
      return undefined;
    }
    logger.error(fields, 'webhook secret cannot be decrypted; endpoint served as unsignable (its deliveries wait for the key)');
    return { secret: null, previousSecret: null, previousSecretExpiresAt: null, secretUnavailable: true };
  }
}
