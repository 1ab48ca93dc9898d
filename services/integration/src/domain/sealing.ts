/**
 * The additional authenticated data binding a connection's sealed parts to its row
 * (@preflight/secret-box): a ciphertext copied onto another connection does not open there.
 */
export const credentialsContext = (connectionId: string) => `integration:${connectionId}:credentials`;
export const inboundSecretContext = (connectionId: string) => `integration:${connectionId}:inbound`;

/**
 * A connection's `last_error` while its credentials cannot be opened: the secret check
 * (secrets/ring-health.ts) makes such a connection active again once they open.
 */
export const UNDECRYPTABLE = 'the credentials cannot be decrypted (their key is not configured); save them again';
