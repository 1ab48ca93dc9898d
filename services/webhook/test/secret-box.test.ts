import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@preflight/config';
import { loadWebhookConfig } from '../src/config.ts';
import { newSigningSecret, openSecret, parseKeyRing, sealSecret, SecretUnavailableError } from '@preflight/secret-box';
import { secretContext } from '../src/domain/secret-context.ts';
import { newKey } from './harness.ts';

describe('signing secrets', () => {
  it('are 32 random bytes in base64', () => {
    const a = newSigningSecret();
    const b = newSigningSecret();
    expect(a).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a, 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe('sealing', () => {
  const ring = parseKeyRing(newKey('k1'));
  const id = randomUUID();

  it('round-trips, with a fresh IV each time and no plaintext in the ciphertext', () => {
    const secret = newSigningSecret();
    const one = sealSecret(ring, secret, secretContext(id));
    const two = sealSecret(ring, secret, secretContext(id));
    expect(one.keyId).toBe('k1');
    expect(one.iv).toHaveLength(12);
    expect(one.tag).toHaveLength(16);
    expect(one.iv.equals(two.iv)).toBe(false);
    expect(one.ciphertext.equals(two.ciphertext)).toBe(false);
    expect(one.ciphertext.toString('utf8')).not.toContain(secret);
    expect(openSecret(ring, one, secretContext(id))).toBe(secret);
  });

  it('binds the ciphertext to its webhook: another id does not decrypt it', () => {
    const sealed = sealSecret(ring, 'shh', secretContext(id));
    expect(() => openSecret(ring, sealed, secretContext(randomUUID()))).toThrow(SecretUnavailableError);
  });

  it('detects tampering', () => {
    const sealed = sealSecret(ring, 'shh', secretContext(id));
    const flipped = Buffer.from(sealed.ciphertext);
    flipped[0]! ^= 1;
    expect(() => openSecret(ring, { ...sealed, ciphertext: flipped }, secretContext(id))).toThrow(/authentication failed/);
  });

  it('rotates: the first key seals, an older key listed after it still opens', () => {
    const old = newKey('2024');
    const oldRing = parseKeyRing(old);
    const sealedWithOld = sealSecret(oldRing, 'old secret', secretContext(id));

    const rotated = parseKeyRing(`${newKey('2025')},${old}`);
    expect(rotated.primaryId).toBe('2025');
    expect(openSecret(rotated, sealedWithOld, secretContext(id))).toBe('old secret');
    const sealedWithNew = sealSecret(rotated, 'new secret', secretContext(id));
    expect(sealedWithNew.keyId).toBe('2025');
    expect(openSecret(rotated, sealedWithNew, secretContext(id))).toBe('new secret');

    // Once the old key is dropped, its ciphertexts say which key they need.
    const dropped = parseKeyRing(newKey('2025'));
    expect(() => openSecret(dropped, sealedWithOld, secretContext(id))).toThrow("cannot decrypt a secret sealed with key '2024'");
  });
});

describe('WEBHOOK_SECRET_KEYS', () => {
  const load = (keys: string | undefined) => loadWebhookConfig({ WEBHOOK_SECRET_KEYS: keys }, false);
  const problemsOf = (keys: string | undefined): string[] => {
    try {
      load(keys);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it('is required', () => {
    expect(problemsOf(undefined)).toEqual(['configuration error: WEBHOOK_SECRET_KEYS is required but not set']);
  });

  it('accepts several keys, spaces allowed, the first one encrypting', () => {
    const config = load(`${newKey('b')}, ${newKey('a')}`);
    expect(config.WEBHOOK_SECRET_KEYS.primaryId).toBe('b');
    expect([...config.WEBHOOK_SECRET_KEYS.keys.keys()]).toEqual(['b', 'a']);
    expect(config.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(config.WEBHOOK_PORT).toBe(8083);
    expect(config.DB_SCHEMA).toBe('webhook');
  });

  it.each([
    ['no id', randomBytes(32).toString('base64'), 'entry 1 must be id:base64key'],
    ['a short key', `k:${randomBytes(16).toString('base64')}`, "key 'k' must be 32 bytes"],
    ['a long key', `k:${randomBytes(48).toString('base64')}`, "key 'k' must be 32 bytes"],
    ['not base64', `k:${'!'.repeat(44)}`, "key 'k' must be 32 bytes"],
    ['a bad id', `bad id:${randomBytes(32).toString('base64')}`, 'entry 1 has an invalid key id'],
    ['a repeated id', `${newKey('k')},${newKey('k')}`, "entry 2 repeats the key id 'k'"],
    ['only commas', ',,', 'must list at least one key'],
  ])('refuses %s with one line that shows no key material', (_label, value, message) => {
    const problems = problemsOf(value);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`configuration error: WEBHOOK_SECRET_KEYS ${message}`);
    const material = value.split(',').map((e) => e.slice(e.indexOf(':') + 1)).filter((m) => m.length > 8);
    for (const m of material) expect(problems[0]).not.toContain(m);
  });
});
