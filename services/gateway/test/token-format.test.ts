import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { generateApiKey, parseApiKey } from '../src/auth/api-key-format.ts';
import { claimsOperatorToken, generateOperatorToken, hashOperatorToken, isWellFormedOperatorToken } from '../src/auth/operator-token-format.ts';
import { checksumOf } from '../src/auth/token-format.ts';

describe('operator token format (the API keys\' shape under opr_)', () => {
  it('generates opr_ + 43 random base62 characters + their 6-character checksum, hashed with SHA-256', () => {
    const { token, hash, prefix, lastFour } = generateOperatorToken();
    expect(token).toMatch(/^opr_[0-9A-Za-z]{49}$/);
    expect(token.slice(-6)).toBe(checksumOf(token.slice(4, 47)));
    expect(prefix).toBe(token.slice(0, 8));
    expect(lastFour).toBe(token.slice(-4));
    expect(hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashOperatorToken(token)).toBe(hash);
    expect(isWellFormedOperatorToken(token)).toBe(true);
  });

  it('refuses a wrong checksum, another shape, and API keys; API keys refuse operator tokens', () => {
    const { token } = generateOperatorToken();
    const flipped = `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
    for (const bad of [flipped, token.slice(0, -1), `${token}x`, token.replace('opr_', 'opx_'), generateApiKey('live').key]) {
      expect(isWellFormedOperatorToken(bad), bad).toBe(false);
    }
    expect(parseApiKey(token)).toBeUndefined();
    expect(claimsOperatorToken(token)).toBe(true);
    expect(claimsOperatorToken(generateApiKey('test').key)).toBe(false);
    expect(new Set(Array.from({ length: 100 }, () => generateOperatorToken().token)).size).toBe(100);
  });
});
