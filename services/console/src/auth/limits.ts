import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from '@preflight/http';

export interface SignInLimits {
  /**
   * Counts an attempt from `address` and refuses it (429 with Retry-After) when the address, or
   * this account from this address, has used up its window.
   */
  admit(account: string, address: string): Promise<void>;
  /** A wrong password: counts against the account from that address. */
  failed(account: string, address: string): Promise<void>;
  /** A right password: the account's count from that address starts again. */
  succeeded(account: string, address: string): Promise<void>;
}

const tooMany = (res: RateLimiterRes) => {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new AppError('rate_limited', 'Too many sign-in attempts. Wait a little and try again.', { headers: { 'Retry-After': String(seconds) } });
};

/**
 * Sign-in limits with rate-limiter-flexible on Redis, shared by every console replica (its
 * fixed windows are atomic Lua in Redis; a well-kept library rather than our own script):
 * attempts per client address, whatever the account (spraying many accounts), and failed
 * attempts per account and address (guessing one account's password), cleared by a success.
 */
export function signInLimits(redis: Redis, opts: { prefix: string; maxPerAccount: number; maxPerAddress: number; windowSeconds: number }): SignInLimits {
  const byAddress = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${opts.prefix}console:sign-in:address`, points: opts.maxPerAddress, duration: opts.windowSeconds });
  const byAccount = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${opts.prefix}console:sign-in:account`, points: opts.maxPerAccount, duration: opts.windowSeconds });
  const accountKey = (account: string, address: string) => `${account}|${address}`;
  return {
    async admit(account, address) {
      const spent = await byAccount.get(accountKey(account, address));
      if (spent && spent.consumedPoints >= opts.maxPerAccount) throw tooMany(spent);
      try {
        await byAddress.consume(address);
      } catch (err) {
        if (err instanceof RateLimiterRes) throw tooMany(err);
        throw err;
      }
    },
    async failed(account, address) {
      try {
        await byAccount.consume(accountKey(account, address));
      } catch (err) {
        // Used up: the next attempt is refused by `admit`.
        if (!(err instanceof RateLimiterRes)) throw err;
      }
    },
    async succeeded(account, address) {
      await byAccount.delete(accountKey(account, address));
    },
  };
}
