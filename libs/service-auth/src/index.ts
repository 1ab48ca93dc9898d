export { generateDeploymentKeys, parsePublicKeys, parseSigningKey, publicKeyText, tokenKid, type DeploymentKeys, type PublicKeyEntry, type PublicKeyRing, type SigningKey } from './keys.ts';
export { CONSOLE, GATEWAY, TOKEN_TTL_SECONDS, ServiceAuthError, serviceTokens, signServiceToken, tokenVerifier, type ServiceTokens, type TokenClaims, type TokenVerifier, type VerifiedCall } from './tokens.ts';
export { onlyFrom, serviceAuthGuard } from './guard.ts';
export { serviceAuthConfigShape, serviceSigningConfigShape } from './config.ts';
