import { randomBytes } from 'node:crypto';
import { hash, verify, type Algorithm, type Options } from '@node-rs/argon2';

/**
 * argon2id with OWASP's password storage parameters (19 MiB of memory, 2 passes, 1 lane):
 * memory-hard, so guessing on GPUs costs dearly. @node-rs/argon2 ships prebuilt binaries for
 * each platform (no compiler in the image) and hashes off the event loop (docs/console.md).
 */
// Spelt out, not left to the library's defaults (which match today): a default that changes must not change our hashes. 2 is Argon2id (an ambient const enum, which isolated modules cannot read).
const PARAMS: Options = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1, outputLen: 32 };

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

export async function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

let dummy: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. With no hash (an unknown e-mail, or a user who signs
 * in only by SSO) it checks against a dummy hash all the same and answers false: a wrong
 * address takes as long as a wrong password, so timing does not tell which addresses exist.
 */
export async function checkPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword(randomBytes(16).toString('hex'));
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  return undefined;
}
