import { BODY_PATTERN, checkedRandomPart, generateToken, hashToken } from './token-format.ts';

/**
 * API key format (the shared shape is token-format.ts):
 *
 *   svc_<environment>_<random><checksum>
 *   environment  live | test
 */
export type KeyEnvironment = 'live' | 'test';

export { base62, checksumOf, CHECKSUM_LENGTH, RANDOM_LENGTH } from './token-format.ts';

const KEY_PATTERN = new RegExp(`^svc_(live|test)_${BODY_PATTERN}$`);

export function keyPrefix(environment: KeyEnvironment): string {
  return `svc_${environment}_`;
}

export interface ParsedKey {
  environment: KeyEnvironment;
  randomPart: string;
}

/** The key's parts when it has our shape and its checksum matches; undefined otherwise. */
export function parseApiKey(candidate: string): ParsedKey | undefined {
  const m = KEY_PATTERN.exec(candidate);
  if (!m) return undefined;
  const randomPart = checkedRandomPart(m[2], m[3]);
  return randomPart === undefined ? undefined : { environment: m[1] as KeyEnvironment, randomPart };
}

export function isWellFormedApiKey(candidate: string): boolean {
  return parseApiKey(candidate) !== undefined;
}

/** SHA-256 of the full key, hex (token-format.ts `hashToken`: why not a slow hash). */
export const hashApiKey = hashToken;

export interface GeneratedKey {
  key: string;
  hash: string;
  /** `svc_test_` plus the first 4 random characters. */
  prefix: string;
  /** The last 4 characters of the full key (part of the checksum), as GitHub shows them. */
  lastFour: string;
}

export function generateApiKey(environment: KeyEnvironment): GeneratedKey {
  const { token, hash, prefix, lastFour } = generateToken(keyPrefix(environment));
  return { key: token, hash, prefix, lastFour };
}
