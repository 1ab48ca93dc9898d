import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (signing secrets, provider credentials): AES-256-GCM with a random 12-byte IV per secret, the key id stored
 * beside the ciphertext, and the owning row's context (`webhook:<id>`, …) as additional authenticated
 * data (a ciphertext copied onto another row does not decrypt there).
 *
 * Keys come from the service's key-ring variable (WEBHOOK_SECRET_KEYS, INTEGRATION_SECRET_KEYS), `id:base64key,id:base64key,…`: the first encrypts, every
 * one decrypts. Rotating: add the new key, make it first, seal every row again under it
 * (`walkSealed`, ring-walk.ts), then drop the old one (docs/operations.md, "Rotating the
 * webhook secret keys").
 */

export interface KeyRing {
  /** The key new secrets are sealed with: the first of the list. */
  primaryId: string;
  keys: ReadonlyMap<string, Buffer>;
}

export interface SealedSecret {
  keyId: string;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const SECRET_BYTES = 32;

/** Parses a key-ring variable. Error messages name entries by position, never show key material. */
export function parseKeyRing(text: string): KeyRing {
  const entries = text.split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (entries.length === 0) throw new Error('must list at least one key as id:base64 (32 bytes)');
  const keys = new Map<string, Buffer>();
  entries.forEach((entry, i) => {
    const at = `entry ${i + 1}`;
    const colon = entry.indexOf(':');
    if (colon < 0) throw new Error(`${at} must be id:base64key`);
    const id = entry.slice(0, colon);
    const material = entry.slice(colon + 1);
    if (!KEY_ID.test(id)) throw new Error(`${at} has an invalid key id (1–64 of A-Z a-z 0-9 . _ -)`);
    if (keys.has(id)) throw new Error(`${at} repeats the key id '${id}'`);
    const key = Buffer.from(material, 'base64');
    if (!BASE64.test(material) || key.length !== KEY_BYTES) throw new Error(`key '${id}' must be ${KEY_BYTES} bytes in standard base64`);
    keys.set(id, key);
  });
  return { primaryId: entries[0]!.slice(0, entries[0]!.indexOf(':')), keys };
}

/** A new signing secret: 32 random bytes, base64 (44 characters). Receivers key HMAC with its UTF-8 text. */
export function newSigningSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64');
}

export function sealSecret(ring: KeyRing, plaintext: string, context: string): SealedSecret {
  const key = ring.keys.get(ring.primaryId)!;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { keyId: ring.primaryId, iv, ciphertext, tag: cipher.getAuthTag() };
}

export class SecretUnavailableError extends Error {
  constructor(readonly keyId: string, why: string) {
    super(`cannot decrypt a secret sealed with key '${keyId}': ${why}`);
    this.name = 'SecretUnavailableError';
  }
}

/** Throws SecretUnavailableError for an unknown key id or a ciphertext that fails authentication. */
export function openSecret(ring: KeyRing, sealed: SealedSecret, context: string): string {
  const key = ring.keys.get(sealed.keyId);
  if (!key) throw new SecretUnavailableError(sealed.keyId, 'the key is not in the key ring');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnavailableError(sealed.keyId, 'authentication failed');
  }
}
