import { Batcher, type Kysely } from '@preflight/db';
import type { ActivityEntry } from '../storage/activity.ts';
import type { ConnectionRow, HealthChange } from '../storage/connections.ts';
import type { JobSettlement } from '../storage/jobs.ts';
import type { ConnectionStatus, IntegrationDatabase } from '../storage/schema.ts';
import { writeTryResults } from '../storage/try-results.ts';

/** What a finished try leaves behind: the job's next state, its activity entry, the connection's health. */
export interface JobResult {
  settlement: JobSettlement;
  activity?: ActivityEntry;
  health?: { connection: ConnectionRow; status: ConnectionStatus; error: string | null };
}

/** How often a healthy connection's `lastSuccessAt` is refreshed at most (per replica). */
const SUCCESS_REFRESH_MS = 5_000;
const MAX_BATCH = 256;

/**
 * Records the results of finished tries by group commit: the jobs' updates, their activity
 * entries and the connections' health of every try that ended while the previous batch was
 * being written go in one statement (storage/try-results.ts). A connection's health is written only when it changes
 * (or, healthy, every few seconds for `lastSuccessAt`), not at every try: a busy connection's
 * row would otherwise be the hottest row of the schema. A crash before a batch commits leaves
 * its jobs `running`: their lease runs out and they are tried again (at least once).
 */
export class JobResults {
  readonly #batcher: Batcher<JobResult, void>;
  /** The health this replica last wrote or saw, per connection. */
  readonly #known = new Map<string, { status: ConnectionStatus; error: string | null; successAt: number }>();

  constructor(private readonly db: Kysely<IntegrationDatabase>) {
    this.#batcher = new Batcher((items) => this.#write(items), MAX_BATCH);
  }

  record(result: JobResult): Promise<void> {
    return this.#batcher.add(result);
  }

  flushed(): Promise<void> {
    return this.#batcher.flushed();
  }

  /** The health changes worth writing for these results (the last per connection). */
  #healthChanges(results: JobResult[]): HealthChange[] {
    const now = Date.now();
    const last = new Map<string, NonNullable<JobResult['health']>>();
    for (const r of results) if (r.health) last.set(r.health.connection.id, r.health);
    const changes: HealthChange[] = [];
    for (const [id, h] of last) {
      const known = this.#known.get(id) ?? { status: h.connection.status, error: h.connection.lastError, successAt: h.connection.lastSuccessAt?.getTime() ?? 0 };
      const healthy = h.status === 'active' && h.error === null;
      const changed = known.status !== h.status || known.error !== h.error;
      if (!changed && !(healthy && now - known.successAt >= SUCCESS_REFRESH_MS)) continue;
      changes.push({ connectionId: id, status: h.status, error: h.error });
      this.#known.set(id, { status: h.status, error: h.error, successAt: healthy ? now : known.successAt });
    }
    return changes;
  }

  /** Forgets what it knew of a connection's health (its settings changed elsewhere). */
  forget(connectionId: string): void {
    this.#known.delete(connectionId);
  }

  async #write(results: JobResult[]): Promise<void[]> {
    const health = this.#healthChanges(results);
    try {
      await writeTryResults(this.db, {
        settlements: results.map((r) => r.settlement),
        activities: results.flatMap((r) => (r.activity ? [r.activity] : [])),
        health,
      });
    } catch (err) {
      for (const h of health) this.#known.delete(h.connectionId);
      throw err;
    }
    return results.map(() => undefined);
  }
}

