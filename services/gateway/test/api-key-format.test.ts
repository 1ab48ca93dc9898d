import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { base62, checksumOf, generateApiKey, hashApiKey, isWellFormedApiKey, parseApiKey } from '../src/auth/api-key-format.ts';

describe('API key format', () => {
  it('generates svc_<env>_ + 43 random base62 characters + a 6-character checksum', () => {
    for (const env of ['live', 'test'] as const) {
      const { key, prefix, lastFour, hash } = generateApiKey(env);
      expect(key).toMatch(new RegExp(`^svc_${env}_[0-9A-Za-z]{49}$`));
      expect(prefix).toBe(key.slice(0, `svc_${env}_`.length + 4));
      expect(lastFour).toBe(key.slice(-4));
      expect(hash).toBe(hashApiKey(key));
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(parseApiKey(key)).toEqual({ environment: env, randomPart: key.slice(9, 52) });
    }
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey('test').key));
    expect(keys.size).toBe(200);
  });

  it('uses the CRC32 of the random part, in base62, as the checksum', () => {
    const randomPart = 'a'.repeat(43);
    expect(checksumOf(randomPart)).toBe(base62(BigInt(crc32(randomPart)), 6));
    expect(base62(61n, 2)).toBe('0z');
    expect(base62(62n, 2)).toBe('10');
  });

  it('rejects a key whose checksum does not match', () => {
    const { key } = generateApiKey('live');
    const last = key.at(-1)!;
    const tampered = key.slice(0, -1) + (last === 'A' ? 'B' : 'A');
    expect(isWellFormedApiKey(tampered)).toBe(false);
    // A changed random character is caught by the checksum too.
    const first = key[9]!;
    expect(isWellFormedApiKey(key.slice(0, 9) + (first === 'x' ? 'y' : 'x') + key.slice(10))).toBe(false);
  });

  it('rejects keys of another shape', () => {
    const { key } = generateApiKey('test');
    for (const bad of ['', 'svc_test_', key.replace('svc_test_', 'svc_prod_'), key.replace('svc_', 'sk_'), `${key}x`, key.slice(0, -1), ` ${key}`, key.replace(/.$/, '-')]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });
});
