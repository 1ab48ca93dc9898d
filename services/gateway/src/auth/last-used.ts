import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { touchLastUsed } from '../storage/api-keys.ts';
import type { IdentityDb } from '../storage/schema.ts';

const INTERVAL_MS = 60_000;

/**
 * Records `lastUsedAt` at most once a minute per key and replica, off the request path: the
 * request never waits for the write, and a failed write only makes the timestamp staler.
 */
export class LastUsedRecorder {
  private readonly lastWrite = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Kysely<IdentityDb>,
    private readonly logger: Logger,
    /** The write: API keys' by default; operator tokens pass their own table's. */
    private readonly touch: (db: Kysely<IdentityDb>, id: string) => Promise<void> = touchLastUsed,
  ) {}

  record(keyId: string): void {
    const now = Date.now();
    const last = this.lastWrite.get(keyId);
    if (last !== undefined && now - last < INTERVAL_MS) return;
    if (this.lastWrite.size > 10_000) this.forgetOlderThan(now - INTERVAL_MS);
    this.lastWrite.set(keyId, now);
    const write = this.touch(this.db, keyId)
      .catch((err: unknown) => this.logger.warn({ err: (err as Error).message, keyId }, 'could not record a key as used'))
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  private forgetOlderThan(cutoff: number): void {
    for (const [keyId, at] of this.lastWrite) if (at < cutoff) this.lastWrite.delete(keyId);
  }

  /** Waits for writes in flight (at shutdown, before the pool closes). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
