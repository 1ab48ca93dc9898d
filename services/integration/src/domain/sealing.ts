/**
 * The additional authenticated data binding a connection's sealed parts to its row
 * (@preflight/secret-box): a ciphertext copied onto another connection does not open there.
 */
export const credentialsContext = (connectionId: string) => `integration:${connectionId}:credentials`;
export const inboundSecretContext = (connectionId: string) => `integration:${connectionId}:inbound`;
