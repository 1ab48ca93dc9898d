import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';

/**
 * Key material of service-to-service tokens: one Ed25519 key pair per service and deployment.
 * A service holds only its own private key; every service holds the ring of public keys, so a
 * compromised service can sign as itself but never as the gateway or another peer.
 *
 * Formats (environment variables, docs/operations.md "Service-to-service keys"):
 * - SERVICE_AUTH_KEY          `kid:base64(32-byte Ed25519 seed)`, this service's signing key;
 * - SERVICE_AUTH_PUBLIC_KEYS  `service:kid:base64(32-byte public key),…`, every key trusted,
 *                             several per service while one is rotated.
 */

/** What a token's `kid` header names: the service the key belongs to, and its id. */
export interface SigningKey {
  service: string;
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface PublicKeyEntry {
  service: string;
  kid: string;
  key: KeyObject;
}

/** Public keys by `<service>:<kid>` (the token's `kid` header). */
export type PublicKeyRing = ReadonlyMap<string, PublicKeyEntry>;

const KID = /^[A-Za-z0-9_.-]{1,64}$/;
const SERVICE = /^[a-z][a-z0-9-]{0,62}$/;
// DER prefixes that turn a raw 32-byte Ed25519 seed / public key into PKCS#8 / SPKI.
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

export const tokenKid = (service: string, kid: string) => `${service}:${kid}`;

function raw32(value: string, what: string): Buffer {
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length !== 32 || bytes.toString('base64').replace(/=+$/, '') !== value.replace(/=+$/, '')) {
    throw new Error(`${what}: the key must be 32 bytes in base64`);
  }
  return bytes;
}

/** `kid:base64seed` of `service` (the service's own name, not in the value). Errors never quote key material. */
export function parseSigningKey(service: string, value: string): SigningKey {
  const at = value.indexOf(':');
  const kid = at < 0 ? '' : value.slice(0, at);
  if (!KID.test(kid)) throw new Error('expected `kid:base64(32-byte Ed25519 seed)` with a kid of letters, digits, `_.-`');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, raw32(value.slice(at + 1).trim(), `key ${kid}`)]), format: 'der', type: 'pkcs8' });
  return { service, kid, privateKey, publicKey: createPublicKey(privateKey) };
}

/** `service:kid:base64pub,…`; a duplicate `service:kid` is refused (which one would win?). */
export function parsePublicKeys(value: string): PublicKeyRing {
  const ring = new Map<string, PublicKeyEntry>();
  for (const [i, raw] of value.split(',').entries()) {
    const entry = raw.trim();
    if (!entry) continue;
    const [service = '', kid = '', key = '', ...rest] = entry.split(':');
    if (rest.length || !SERVICE.test(service) || !KID.test(kid)) throw new Error(`entry ${i + 1}: expected \`service:kid:base64(32-byte Ed25519 public key)\``);
    const id = tokenKid(service, kid);
    if (ring.has(id)) throw new Error(`entry ${i + 1}: ${id} is listed twice`);
    const der = Buffer.concat([SPKI_ED25519, raw32(key, `entry ${i + 1} (${id})`)]);
    ring.set(id, { service, kid, key: createPublicKey({ key: der, format: 'der', type: 'spki' }) });
  }
  if (ring.size === 0) throw new Error('no public key listed');
  return ring;
}

/** The raw 32-byte public key in base64, as SERVICE_AUTH_PUBLIC_KEYS lists it. */
export function publicKeyText(key: KeyObject): string {
  return key.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519.length).toString('base64');
}

export interface DeploymentKeys {
  /** SERVICE_AUTH_KEY per service. */
  keys: Record<string, string>;
  /** SERVICE_AUTH_PUBLIC_KEYS: every service's public key. */
  publicKeys: string;
}

/** Fresh key pairs for `services` (npm start, the tests, scripts/service-auth-keys.ts). */
export function generateDeploymentKeys(services: readonly string[], kid: string): DeploymentKeys {
  const keys: Record<string, string> = {};
  const entries: string[] = [];
  for (const service of services) {
    keys[service] = `${kid}:${randomBytes(32).toString('base64')}`;
    entries.push(`${service}:${kid}:${publicKeyText(parseSigningKey(service, keys[service]).publicKey)}`);
  }
  return { keys, publicKeys: entries.join(',') };
}
