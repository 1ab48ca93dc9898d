import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { z } from 'zod';
import type { Caller } from '@preflight/http';
import { tokenKid, type PublicKeyRing, type SigningKey } from './keys.ts';

/** The service whose tokens may carry an end caller's identity: only it authenticates clients. */
export const GATEWAY = 'gateway';
/** The console signs members in; its tokens may carry a member caller, and only to the gateway. */
export const CONSOLE = 'console';

/** A token lives a minute; callers re-mint it 20 s before it ends, so none is sent nearly expired. */
export const TOKEN_TTL_SECONDS = 60;
const REFRESH_BEFORE_SECONDS = 20;
/** Longest lifetime accepted (exp − iat): a stolen signing key still cannot mint a long-lived token. */
const MAX_LIFETIME_SECONDS = 300;
/** Clock skew tolerated between pods. */
const CLOCK_TOLERANCE_SECONDS = 10;
/** Entries per cache (tokens minted, tokens verified): bounded so distinct callers cannot grow memory. */
const CACHE_ENTRIES = 10_000;

const CallerClaim = z.union([
  z.object({ kind: z.literal('admin') }).strict(),
  z.object({ kind: z.literal('api-key'), orgId: z.string().min(1), keyId: z.string().min(1), keyName: z.string() }).strict(),
  z.object({ kind: z.literal('member'), orgId: z.string().min(1), userId: z.string().min(1), role: z.enum(['Owner', 'Admin', 'Member']) }).strict(),
]);

export interface TokenClaims {
  /** Issuer and subject: the calling service. */
  from: string;
  /** Audience: the service called. */
  to: string;
  /**
   * The end caller: the API key or operator the gateway authenticated (the gateway's tokens), or
   * the signed-in member the console acts for (the console's tokens to the gateway).
   */
  caller?: Caller | undefined;
  /** Seconds since the epoch; now by default. */
  issuedAt?: number;
  ttlSeconds?: number;
}

/** One signed token (ES256 would do as well; EdDSA keys are 32 bytes and fast to sign and check). */
export function signServiceToken(key: Pick<SigningKey, 'service' | 'kid' | 'privateKey'>, claims: TokenClaims): Promise<string> {
  const iat = claims.issuedAt ?? Math.floor(Date.now() / 1000);
  return new SignJWT(claims.caller ? { caller: claims.caller } : {})
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: tokenKid(key.service, key.kid) })
    .setIssuer(claims.from)
    .setSubject(claims.from)
    .setAudience(claims.to)
    .setIssuedAt(iat)
    .setExpirationTime(iat + (claims.ttlSeconds ?? TOKEN_TTL_SECONDS))
    .sign(key.privateKey);
}

/** A bounded map that forgets its oldest entry when full (insertion order). */
class BoundedCache<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    if (!this.has(key) && this.size >= CACHE_ENTRIES) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}

/** What a service uses to call its peers. */
export interface ServiceTokens {
  readonly service: string;
  /** `Bearer <token>` for a call to `to`, for `caller` (the gateway only); minted once a ~40 s per pair. */
  authorization(to: string, caller?: Caller): Promise<string>;
}

export function serviceTokens(key: SigningKey): ServiceTokens {
  const cache = new BoundedCache<{ value: Promise<string>; refreshAt: number }>();
  return {
    service: key.service,
    authorization(to, caller) {
      const id = caller === undefined ? to : `${to}\0${callerKey(caller)}`;
      const now = Date.now() / 1000;
      const hit = cache.get(id);
      if (hit && hit.refreshAt > now) return hit.value;
      const issuedAt = Math.floor(now);
      const value = signServiceToken(key, { from: key.service, to, caller, issuedAt }).then((t) => `Bearer ${t}`);
      cache.set(id, { value, refreshAt: issuedAt + TOKEN_TTL_SECONDS - REFRESH_BEFORE_SECONDS });
      value.catch(() => cache.delete(id));
      return value;
    },
  };
}

/** A caller's cache key: every claim that goes into its tokens. */
function callerKey(caller: Caller): string {
  switch (caller.kind) {
    case 'admin':
      return 'admin';
    case 'api-key':
      return `key\0${caller.orgId}\0${caller.keyId}\0${caller.keyName}`;
    case 'member':
      return `member\0${caller.orgId}\0${caller.userId}\0${caller.role}`;
  }
}

/** Why a token was refused; the detail goes to the caller as is (never key material). */
export class ServiceAuthError extends Error {
  override readonly name = 'ServiceAuthError';
}

export interface VerifiedCall {
  /** The calling service (the key's owner, equal to iss and sub). */
  service: string;
  /** The end caller, from a gateway token only. */
  caller: Caller | undefined;
}

export interface TokenVerifier {
  verify(token: string): Promise<VerifiedCall>;
}

/**
 * Checks tokens addressed to `self` against the public key ring. A verified token is cached until
 * it expires, so the gateway's reused tokens cost one map lookup after the first request.
 */
export function tokenVerifier(self: string, ring: PublicKeyRing): TokenVerifier {
  const cache = new BoundedCache<{ call: VerifiedCall; exp: number }>();
  return {
    async verify(token) {
      const hit = cache.get(token);
      if (hit && hit.exp > Date.now() / 1000 - CLOCK_TOLERANCE_SECONDS) return hit.call;
      if (hit) cache.delete(token);
      let payload: JWTPayload;
      let owner!: string;
      try {
        ({ payload } = await jwtVerify(
          token,
          (header) => {
            const entry = header.kid === undefined ? undefined : ring.get(header.kid);
            if (!entry) throw new ServiceAuthError(`The service token's key ${JSON.stringify(header.kid ?? null)} is not in SERVICE_AUTH_PUBLIC_KEYS.`);
            owner = entry.service;
            return entry.key;
          },
          { algorithms: ['EdDSA'], audience: self, clockTolerance: CLOCK_TOLERANCE_SECONDS, requiredClaims: ['iss', 'sub', 'aud', 'iat', 'exp'] },
        ));
      } catch (err) {
        throw new ServiceAuthError(refusal(err, self), { cause: err });
      }
      if (payload.iss !== owner || payload.sub !== owner) throw new ServiceAuthError(`The service token names ${String(payload.iss)} but is signed with a key of ${owner}.`);
      if (payload.exp! - payload.iat! > MAX_LIFETIME_SECONDS) throw new ServiceAuthError(`The service token lives longer than ${MAX_LIFETIME_SECONDS} s.`);
      let caller: Caller | undefined;
      if (payload.caller !== undefined) {
        const parsed = CallerClaim.safeParse(payload.caller);
        if (!parsed.success) throw new ServiceAuthError('The service token carries a malformed caller.');
        caller = parsed.data;
        const consoleMember = owner === CONSOLE && caller.kind === 'member' && self === GATEWAY;
        if (owner !== GATEWAY && !consoleMember) {
          throw new ServiceAuthError(`Only the gateway's tokens (and the console's, for a member, to the gateway) carry a caller; this one is the ${owner} service's.`);
        }
      }
      const call = { service: owner, caller };
      cache.set(token, { call, exp: payload.exp! });
      return call;
    },
  };
}

function refusal(err: unknown, self: string): string {
  if (err instanceof ServiceAuthError) return err.message;
  if (err instanceof joseErrors.JWTExpired) return 'The service token has expired.';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return `The service token is addressed to another service, not ${self}.`;
    return `The service token's ${err.claim} claim is missing or invalid (${err.reason}).`;
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'The service token\'s signature does not verify.';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'The service token must be signed with EdDSA.';
  return 'The service token is malformed.';
}
