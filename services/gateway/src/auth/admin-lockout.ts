import { MemoryRateLimiter } from '../rate-limit/memory-limiter.ts';

/**
 * Wrong operator tokens per client address (express `req.ip`, so TRUST_PROXY decides which
 * address that is). After `max` failures inside `windowSeconds`, every admin request from the
 * address is refused (429) until the oldest failure leaves the window, the right token
 * included: were it let through, a guesser would still learn when a guess is right.
 * Per replica, in memory: guessing a token of at least 16 characters is hopeless anyway; this
 * bounds the rate and the noise, and N replicas allow N×max guesses per window.
 */
export class AdminLockout {
  private readonly failures: MemoryRateLimiter;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    readonly max: number,
    readonly windowSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.failures = new MemoryRateLimiter({ limit: max, windowSeconds }, now);
    this.sweeper = setInterval(() => this.failures.sweep(), windowSeconds * 1000);
    this.sweeper.unref();
  }

  /** Seconds until the address may try again; 0 when it is not locked out. */
  lockedFor(address: string): number {
    const recent = this.failures.admissions(address);
    if (recent.length < this.max) return 0;
    return Math.max(1, Math.ceil((recent[0]!.at + this.windowSeconds * 1000 - this.now()) / 1000));
  }

  recordFailure(address: string): void {
    this.failures.reserve(address);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
