import { generateDeploymentKeys, parsePublicKeys, parseSigningKey, serviceTokens, signServiceToken, type ServiceTokens, type SigningKey, type TokenClaims } from '@preflight/service-auth';

/** Every service that signs or checks service tokens. */
export const SERVICE_NAMES = ['gateway', 'campaign', 'issue', 'webhook', 'delivery', 'integration', 'console'] as const;

/**
 * One key pair per service, made once per test process: the services a test starts in-process
 * (`serviceAuthConfig`) trust these keys, and `serviceAuthHeaders` signs with them.
 */
export const testServiceKeys = generateDeploymentKeys(SERVICE_NAMES, 'test');

/** SERVICE_AUTH_KEY and SERVICE_AUTH_PUBLIC_KEYS, parsed, to spread into a service's test config. */
export function serviceAuthConfig(service: string) {
  return { SERVICE_AUTH_KEY: testSigningKey(service), SERVICE_AUTH_PUBLIC_KEYS: parsePublicKeys(testServiceKeys.publicKeys) };
}

export function testSigningKey(service: string): SigningKey {
  const key = testServiceKeys.keys[service];
  if (!key) throw new Error(`no test key for ${service}`);
  return parseSigningKey(service, key);
}

const minters = new Map<string, ServiceTokens>();

/** What `from` sends when it calls: its tokens, cached like a service's own. */
export function testTokens(from: string): ServiceTokens {
  let minter = minters.get(from);
  if (!minter) minters.set(from, (minter = serviceTokens(testSigningKey(from))));
  return minter;
}

/**
 * `{authorization}` of a call to service `to`, as a service in front of it would send it: the
 * gateway's token for `caller` (an API key or the operator), else a token of `from` (default
 * the gateway) without a caller.
 */
export async function serviceAuthHeaders(to: string, opts: { from?: string; caller?: TokenClaims['caller'] } = {}): Promise<{ authorization: string }> {
  const from = opts.caller ? 'gateway' : (opts.from ?? 'gateway');
  return { authorization: await testTokens(from).authorization(to, opts.caller) };
}

/** A token with any claims (expired, another audience, a caller from a peer), signed with `key` or `from`'s test key. */
export function testServiceToken(claims: TokenClaims, key: Pick<SigningKey, 'service' | 'kid' | 'privateKey'> = testSigningKey(claims.from)): Promise<string> {
  return signServiceToken(key, claims);
}
