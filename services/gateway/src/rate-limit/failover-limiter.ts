import { randomBytes } from 'node:crypto';
import type { Logger } from '@preflight/log';
import type { Gauge } from 'prom-client';
import { MemoryRateLimiter, type Reservation } from './memory-limiter.ts';
import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from './policy.ts';
import type { CachedAdmission, RedisRateLimiter, SharedDecision } from './redis-limiter.ts';

/**
 * The shared limit through Redis, reconciled with a local mirror so that no replica ever
 * admits more than `limit` per window for one subject, through a Redis outage and its recovery
 * (issue 22, finding 6: 600 in Redis + 600 in memory + 600 in the restarted Redis).
 *
 * Every admission is reserved in the in-memory log first and only then asked of Redis: a
 * request is admitted only when both admit it. While Redis is up the local log is a subset of
 * the shared one and changes nothing; when Redis fails it already holds the last window; when
 * Redis comes back empty, it still refuses what this replica admitted, and the shared log is
 * seeded from it (so other replicas see those admissions too). A rejection by Redis takes the
 * reservation back. Only settled admissions are ever seeded: a reservation still waiting for
 * Redis's answer written back would count twice, once seeded and once by its own script, and
 * the window would admit fewer than `limit`. One warning per outage, and a gauge for alerting.
 */
export class FailoverRateLimiter implements RateLimiter {
  private degraded = false;
  private readonly local: MemoryRateLimiter;
  private readonly sweeper: NodeJS.Timeout;
  private readonly memberPrefix = randomBytes(8).toString('base64url');
  /** Reservations sent to Redis and not yet answered, by sequence number, and how many per subject. */
  private readonly pending = new Set<number>();
  private readonly pendingPerSubject = new Map<string, number>();

  constructor(
    private readonly shared: RedisRateLimiter,
    readonly policy: RateLimitPolicy,
    private readonly logger: Logger,
    private readonly gauge: Gauge,
    private readonly now: () => number = Date.now,
  ) {
    this.local = new MemoryRateLimiter(policy, now);
    this.sweeper = setInterval(() => this.local.sweep(), policy.windowSeconds * 1000);
    this.sweeper.unref();
    gauge.set(0);
  }

  /** The shared log's member of a local admission: the same on every seeding, so seeding is idempotent. */
  private member(seq: number): string {
    return `${this.memberPrefix}:${seq}`;
  }

  async check(subject: string): Promise<RateLimitDecision> {
    const reserved = this.local.reserve(subject);
    // Full here means full in the shared log too (this replica's admissions are part of it).
    if (reserved.seq === undefined) return reserved.decision;
    let shared: SharedDecision;
    this.hold(subject, reserved.seq);
    try {
      shared = await this.shared.check(subject, this.member(reserved.seq));
    } catch (err) {
      this.settle(subject, reserved.seq);
      this.markDegraded(err);
      return reserved.decision;
    }
    this.settle(subject, reserved.seq);
    await this.markRecovered(shared);
    return this.reconcile(subject, reserved, shared);
  }

  /**
   * The one-round-trip path of a key seen before (auth/api-key-auth.ts): the cache entry and
   * the shared log in one script, reconciled like `check`. Undefined sends the request down the
   * full path (authentication, then `check`): while degraded, when the local log is full, or
   * when Redis fails.
   */
  async checkCachedKey(cacheEntryKey: string, subject: string): Promise<CachedAdmission | undefined> {
    if (this.degraded) return undefined;
    const reserved = this.local.reserve(subject);
    if (reserved.seq === undefined) return undefined;
    let found: CachedAdmission;
    this.hold(subject, reserved.seq);
    try {
      found = await this.shared.checkCachedKey(cacheEntryKey, subject, this.member(reserved.seq));
    } catch {
      this.local.cancel(subject, reserved.seq);
      return undefined;
    } finally {
      this.settle(subject, reserved.seq);
    }
    if (found.kind !== 'decided') {
      this.local.cancel(subject, reserved.seq);
      return found;
    }
    const decision = await this.reconcile(subject, reserved, found.decision);
    return { ...found, decision: { ...found.decision, ...decision } };
  }

  private async reconcile(subject: string, reserved: Reservation, shared: SharedDecision): Promise<RateLimitDecision> {
    if (!shared.admitted) {
      this.local.cancel(subject, reserved.seq!);
      return shared;
    }
    // The shared log holds fewer admissions than this replica alone made: Redis lost them (it
    // restarted between two of our calls, so no failure told us). Counted, not listed: this
    // runs on every request, and the log can hold the whole window's admissions.
    if (shared.count < this.local.count(subject) - (this.pendingPerSubject.get(subject) ?? 0)) await this.seed(subject, shared);
    return reserved.decision.remaining < shared.remaining ? reserved.decision : shared;
  }

  /** Writes this replica's admissions in the window back into the shared log (NX, by member). */
  private async seed(subject: string, shared: SharedDecision): Promise<void> {
    const offsetMicros = shared.nowMicros - this.now() * 1000;
    const entries = this.settled(subject).map((a) => ({ atMicros: a.at * 1000 + offsetMicros, member: this.member(a.seq) }));
    try {
      await this.shared.seed(subject, entries);
    } catch {
      // The local log still holds the line for this replica; the next admission tries again.
    }
  }

  private hold(subject: string, seq: number): void {
    this.pending.add(seq);
    this.pendingPerSubject.set(subject, (this.pendingPerSubject.get(subject) ?? 0) + 1);
  }

  private settle(subject: string, seq: number): void {
    this.pending.delete(seq);
    const left = (this.pendingPerSubject.get(subject) ?? 1) - 1;
    if (left > 0) this.pendingPerSubject.set(subject, left);
    else this.pendingPerSubject.delete(subject);
  }

  /** This replica's admissions in the window that Redis has answered for (or that were made while it was down). */
  private settled(subject: string) {
    return this.local.admissions(subject).filter((a) => !this.pending.has(a.seq));
  }

  private markDegraded(err: unknown): void {
    if (this.degraded) return;
    this.degraded = true;
    this.gauge.set(1);
    this.logger.warn({ err: (err as Error).message }, 'Redis is unreachable; rate limiting per replica in memory until it is back');
  }

  /**
   * Back from an outage: Redis may have restarted empty, so every subject's local window goes
   * back into it before this request is answered, and other replicas count what we admitted.
   */
  private async markRecovered(shared: SharedDecision): Promise<void> {
    if (!this.degraded) return;
    this.degraded = false;
    this.gauge.set(0);
    await Promise.all(this.local.subjects().map((subject) => this.seed(subject, shared)));
    this.logger.info('Redis is reachable again; rate limits are shared across replicas once more');
  }

  get isDegraded(): boolean {
    return this.degraded;
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
