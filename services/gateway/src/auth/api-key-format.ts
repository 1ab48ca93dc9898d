import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format, shaped like GitHub's tokens so secret scanners can recognise a leaked key
 * and check it offline without calling us:
 *
 *   svc_<environment>_<random><checksum>
 *   environment  live | test
 *   random       32 bytes from crypto.randomBytes, base62, left-padded to 43 characters
 *   checksum     CRC32 of the random part's 43 characters, base62, left-padded to 6
 *
 * A key that fails the shape or the checksum is rejected before any Redis or Postgres work, so
 * typos and junk cost nothing.
 */
export type KeyEnvironment = 'live' | 'test';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_BYTES = 32;
/** ceil(256 / log2(62)) */
export const RANDOM_LENGTH = 43;
/** ceil(32 / log2(62)) */
export const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^svc_(live|test)_([0-9A-Za-z]{43})([0-9A-Za-z]{6})$/;

export function base62(value: bigint, width: number): string {
  let out = '';
  let n = value;
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(width, '0');
}

export function checksumOf(randomPart: string): string {
  return base62(BigInt(crc32(randomPart)), CHECKSUM_LENGTH);
}

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
  const [, environment, randomPart, checksum] = m as unknown as [string, KeyEnvironment, string, string];
  if (checksumOf(randomPart) !== checksum) return undefined;
  return { environment, randomPart };
}

export function isWellFormedApiKey(candidate: string): boolean {
  return parseApiKey(candidate) !== undefined;
}

/**
 * SHA-256, not bcrypt/argon2: slow hashes protect guessable passwords, while a key is 256
 * random bits, so a leaked hash cannot be reversed by any amount of guessing. A fast,
 * deterministic hash is what lets every request find its key with one unique-index lookup.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface GeneratedKey {
  key: string;
  hash: string;
  /**
   * `svc_test_` plus the first 4 random characters: enough for an operator to tell keys apart
   * in a list next to `lastFour`. The 8 characters shown pin down at most ~48 of the 256
   * random bits (4 random characters, 4 checksum characters), leaving over 200 unknown.
   */
  prefix: string;
  /** The last 4 characters of the full key (part of the checksum), as GitHub shows them. */
  lastFour: string;
}

export function generateApiKey(environment: KeyEnvironment): GeneratedKey {
  const randomPart = base62(BigInt(`0x${randomBytes(RANDOM_BYTES).toString('hex')}`), RANDOM_LENGTH);
  const key = `${keyPrefix(environment)}${randomPart}${checksumOf(randomPart)}`;
  return { key, hash: hashApiKey(key), prefix: `${keyPrefix(environment)}${randomPart.slice(0, 4)}`, lastFour: key.slice(-4) };
}
