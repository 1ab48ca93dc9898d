import { BODY_PATTERN, checkedRandomPart, generateToken, hashToken, type GeneratedToken } from './token-format.ts';

/**
 * Operator tokens for /admin/v1: `opr_<random><checksum>`, the API keys' shape and hashing
 * (token-format.ts) under their own prefix, so neither kind can pass for the other.
 */
export const OPERATOR_TOKEN_PREFIX = 'opr_';
const TOKEN_PATTERN = new RegExp(`^${OPERATOR_TOKEN_PREFIX}${BODY_PATTERN}$`);

/** Anything presented with the operator prefix is judged as an operator token (never as ADMIN_TOKEN). */
export const claimsOperatorToken = (candidate: string): boolean => candidate.startsWith(OPERATOR_TOKEN_PREFIX);

/** True when the token has our shape and its checksum matches. */
export function isWellFormedOperatorToken(candidate: string): boolean {
  const m = TOKEN_PATTERN.exec(candidate);
  return m !== null && checkedRandomPart(m[1], m[2]) !== undefined;
}

export const hashOperatorToken = hashToken;

export const generateOperatorToken = (): GeneratedToken => generateToken(OPERATOR_TOKEN_PREFIX);
