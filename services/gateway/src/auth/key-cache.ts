import type { Redis } from 'ioredis';
import type { Logger } from '@preflight/log';
import type { KeyIdentity } from '../storage/api-keys.ts';

export type CachedKey = KeyIdentity | { revoked: true };
/** An entry of any credential kind: its identity, or the revocation tombstone. */
export type Cached<T> = T | { revoked: true };

/**
 * A short-lived Redis cache of key lookups (by key hash) in front of Postgres. Failures are
 * never fatal: a read that fails is a miss, a fill that fails is skipped.
 *
 * Revocation writes a tombstone over the entry instead of deleting it, and fills use SET NX:
 * a request that read the key from Postgres just before the revocation committed can then
 * never put the live entry back after the revocation cleared it.
 *
 * API keys live under `<prefix>key:<sha256>`; operator tokens use a second instance with the
 * namespace `opr` (auth/operator-token-auth.ts), the same tombstones and the same fills.
 */
export class KeyCache<T extends { revoked: boolean } = KeyIdentity> {
  private readonly retries = new Set<NodeJS.Timeout>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    private readonly logger: Logger,
    private readonly namespace = 'key',
  ) {}

  /** The Redis key of a key hash's entry. */
  entryKey(keyHash: string): string {
    return `${this.prefix}${this.namespace}:${keyHash}`;
  }

  /** An entry as stored: the tombstone is exactly `{"revoked":true}` (the admission script looks for it). */
  static serialise(value: CachedKey): string {
    return JSON.stringify(value);
  }

  /** A live entry's identity; undefined for a tombstone or anything unreadable. */
  static parse(raw: string): KeyIdentity | undefined {
    try {
      const value = JSON.parse(raw) as CachedKey;
      return 'keyId' in value && !value.revoked ? value : undefined;
    } catch {
      return undefined;
    }
  }

  async get(keyHash: string): Promise<Cached<T> | undefined> {
    try {
      const raw = await this.redis.get(this.entryKey(keyHash));
      return raw ? (JSON.parse(raw) as Cached<T>) : undefined;
    } catch {
      return undefined;
    }
  }

  fill(keyHash: string, value: Cached<T>): void {
    this.redis.set(this.entryKey(keyHash), JSON.stringify(value), 'EX', this.ttlSeconds, 'NX').catch(() => undefined);
  }

  /**
   * Called after Postgres has the revocation. If Redis cannot be reached now, keep retrying in
   * the background for two TTLs: replicas that cannot reach Redis read Postgres and already
   * refuse the key; one that still reads a cached entry (Redis reachable from it but not from
   * us) may accept the key until that entry expires, at most `ttlSeconds` after it was filled.
   */
  async markRevoked(keyHash: string): Promise<void> {
    try {
      await this.writeTombstone(keyHash);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'could not clear a revoked key from the cache; retrying in the background');
      this.retryTombstone(keyHash, Date.now() + 2 * this.ttlSeconds * 1000);
    }
  }

  private writeTombstone(keyHash: string): Promise<unknown> {
    return this.redis.set(this.entryKey(keyHash), JSON.stringify({ revoked: true }), 'EX', this.ttlSeconds);
  }

  private retryTombstone(keyHash: string, deadline: number): void {
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      this.writeTombstone(keyHash).catch(() => {
        if (Date.now() < deadline) this.retryTombstone(keyHash, deadline);
      });
    }, 1_000);
    timer.unref();
    this.retries.add(timer);
  }

  close(): void {
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
  }
}
