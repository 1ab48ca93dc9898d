import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * What API keys (`svc_<env>_…`, api-key-format.ts) and operator tokens (`opr_…`,
 * operator-token-format.ts) share, shaped like GitHub's tokens so secret scanners can recognise a
 * leaked one and check it offline without calling us:
 *
 *   <prefix><random><checksum>
 *   random       32 bytes from crypto.randomBytes, base62, left-padded to 43 characters
 *   checksum     CRC32 of the random part's 43 characters, base62, left-padded to 6
 *
 * A credential that fails the shape or the checksum is rejected before any Redis or Postgres
 * work, so typos and junk cost nothing. Only the SHA-256 of the whole value is stored.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_BYTES = 32;
/** ceil(256 / log2(62)) */
export const RANDOM_LENGTH = 43;
/** ceil(32 / log2(62)) */
export const CHECKSUM_LENGTH = 6;
/** The random part and checksum after a prefix. */
export const BODY_PATTERN = `([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})`;

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

/**
 * SHA-256, not bcrypt/argon2: slow hashes protect guessable passwords, while a token is 256
 * random bits, so a leaked hash cannot be reversed by any amount of guessing. A fast,
 * deterministic hash is what lets every request find its credential with one unique-index lookup.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface GeneratedToken {
  token: string;
  hash: string;
  /**
   * The prefix plus the first 4 random characters: enough for an operator to tell credentials
   * apart in a list next to `lastFour`. The 8 characters shown pin down at most ~48 of the 256
   * random bits (4 random characters, 4 checksum characters), leaving over 200 unknown.
   */
  prefix: string;
  /** The last 4 characters of the full value (part of the checksum), as GitHub shows them. */
  lastFour: string;
}

export function generateToken(prefix: string): GeneratedToken {
  const randomPart = base62(BigInt(`0x${randomBytes(RANDOM_BYTES).toString('hex')}`), RANDOM_LENGTH);
  const token = `${prefix}${randomPart}${checksumOf(randomPart)}`;
  return { token, hash: hashToken(token), prefix: `${prefix}${randomPart.slice(0, 4)}`, lastFour: token.slice(-4) };
}

/** The random part when `match` (a match of `<prefix>BODY_PATTERN`) carries a valid checksum. */
export function checkedRandomPart(randomPart: string | undefined, checksum: string | undefined): string | undefined {
  if (randomPart === undefined || checksum === undefined) return undefined;
  return checksumOf(randomPart) === checksum ? randomPart : undefined;
}
