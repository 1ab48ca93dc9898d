import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { generateDeploymentKeys, parsePublicKeys, parseSigningKey, ServiceAuthError, serviceTokens, signServiceToken, tokenVerifier } from '../src/index.ts';

const deployment = generateDeploymentKeys(['gateway', 'delivery', 'webhook', 'console'], 'k1');
const ring = parsePublicKeys(deployment.publicKeys);
const key = (service: string) => parseSigningKey(service, deployment.keys[service]!);
const webhook = tokenVerifier('webhook', ring);
const now = () => Math.floor(Date.now() / 1000);

async function refusal(token: string): Promise<string> {
  const err = await webhook.verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceAuthError);
  return (err as Error).message;
}

describe('service tokens', () => {
  it('carry the calling service, and the caller only from the gateway', async () => {
    const caller = { kind: 'api-key' as const, orgId: 'o1', keyId: 'k1', keyName: 'CI ü' };
    const bearer = await serviceTokens(key('gateway')).authorization('webhook', caller);
    expect(await webhook.verify(bearer.slice('Bearer '.length))).toEqual({ service: 'gateway', caller });
    const peer = await serviceTokens(key('delivery')).authorization('webhook');
    expect(await webhook.verify(peer.slice('Bearer '.length))).toEqual({ service: 'delivery', caller: undefined });
    expect(await refusal(await signServiceToken(key('delivery'), { from: 'delivery', to: 'webhook', caller: { kind: 'admin' } }))).toMatch(/Only the gateway/);
  });

  it('carry a console member to the gateway only, and nothing else from the console', async () => {
    const member = { kind: 'member' as const, orgId: 'o1', userId: 'u1', role: 'Admin' as const };
    const gateway = tokenVerifier('gateway', ring);
    const toGateway = await serviceTokens(key('console')).authorization('gateway', member);
    expect(await gateway.verify(toGateway.slice('Bearer '.length))).toEqual({ service: 'console', caller: member });
    // The gateway forwards the member to a service; the console cannot address one itself.
    const forwarded = await serviceTokens(key('gateway')).authorization('webhook', member);
    expect(await webhook.verify(forwarded.slice('Bearer '.length))).toEqual({ service: 'gateway', caller: member });
    expect(await refusal(await signServiceToken(key('console'), { from: 'console', to: 'webhook', caller: member }))).toMatch(/Only the gateway/);
    const asOperator = await signServiceToken(key('console'), { from: 'console', to: 'gateway', caller: { kind: 'admin' } });
    await expect(gateway.verify(asOperator)).rejects.toThrow(/Only the gateway/);
    const badRole = await signServiceToken(key('console'), { from: 'console', to: 'gateway', caller: { ...member, role: 'Root' as 'Owner' } });
    await expect(gateway.verify(badRole)).rejects.toThrow(/malformed caller/);
  });

  it('are minted once per audience and caller while fresh', async () => {
    const tokens = serviceTokens(key('gateway'));
    const a = await tokens.authorization('webhook', { kind: 'admin' });
    expect(await tokens.authorization('webhook', { kind: 'admin' })).toBe(a);
    expect(await tokens.authorization('delivery', { kind: 'admin' })).not.toBe(a);
    expect(await tokens.authorization('webhook')).not.toBe(a);
  });

  it('are refused expired, for another audience, too long-lived, or naming another issuer', async () => {
    expect(await refusal(await signServiceToken(key('delivery'), { from: 'delivery', to: 'webhook', issuedAt: now() - 120 }))).toMatch(/expired/);
    expect(await refusal(await signServiceToken(key('delivery'), { from: 'delivery', to: 'issue' }))).toMatch(/another service/);
    expect(await refusal(await signServiceToken(key('delivery'), { from: 'delivery', to: 'webhook', ttlSeconds: 3600 }))).toMatch(/longer than/);
    // delivery's key claiming to be the gateway (to carry a caller): the key decides who signed.
    expect(await refusal(await signServiceToken(key('delivery'), { from: 'gateway', to: 'webhook', caller: { kind: 'admin' } }))).toMatch(/signed with a key of delivery/);
  });

  it('are refused forged: another key under a trusted kid, an unknown kid, another algorithm, garbage', async () => {
    const forger = parseSigningKey('delivery', generateDeploymentKeys(['delivery'], 'k1').keys.delivery!);
    expect(await refusal(await signServiceToken(forger, { from: 'delivery', to: 'webhook' }))).toMatch(/signature/);
    expect(await refusal(await signServiceToken({ ...forger, kid: 'k9' }, { from: 'delivery', to: 'webhook' }))).toMatch(/not in SERVICE_AUTH_PUBLIC_KEYS/);
    const hs = await new SignJWT({}).setProtectedHeader({ alg: 'HS256', kid: 'delivery:k1' }).setIssuer('delivery').setSubject('delivery').setAudience('webhook').setIssuedAt().setExpirationTime('1m').sign(new Uint8Array(32));
    expect(await refusal(hs)).toMatch(/EdDSA/);
    const unsigned = `${Buffer.from('{"alg":"none","kid":"delivery:k1"}').toString('base64url')}.${Buffer.from('{"iss":"delivery"}').toString('base64url')}.`;
    expect(await refusal(unsigned)).toMatch(/EdDSA|malformed/);
    expect(await refusal('not-a-token')).toMatch(/malformed/);
  });

  it('verify against a ring: a service keeps working while its key is rotated', async () => {
    const next = generateDeploymentKeys(['delivery'], 'k2');
    const both = tokenVerifier('webhook', parsePublicKeys(`${next.publicKeys},${deployment.publicKeys}`));
    for (const signer of [key('delivery'), parseSigningKey('delivery', next.keys.delivery!)]) {
      expect((await both.verify(await signServiceToken(signer, { from: 'delivery', to: 'webhook' }))).service).toBe('delivery');
    }
  });

  it('parse key settings without ever quoting the key', () => {
    expect(() => parseSigningKey('webhook', 'no-kid')).toThrow(/kid:base64/);
    expect(() => parseSigningKey('webhook', 'k1:c2hvcnQ=')).toThrow(/^key k1: the key must be 32 bytes/);
    expect(() => parsePublicKeys('webhook:k1')).toThrow(/entry 1/);
    const [first] = deployment.publicKeys.split(',');
    expect(() => parsePublicKeys(`${first},${first}`)).toThrow(/listed twice/);
    expect(() => parsePublicKeys(' , ')).toThrow(/no public key/);
  });
});
