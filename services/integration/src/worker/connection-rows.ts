import type { Kysely } from '@preflight/db';
import { connectionsWithIds, type ConnectionRow } from '../storage/connections.ts';
import type { ClaimedJob } from '../storage/jobs.ts';
import type { IntegrationDatabase } from '../storage/schema.ts';

const MAX_CACHED = 10_000;

/**
 * The connection rows of claimed jobs, read again only when the claim names a newer version
 * (`updated_at`, which every change of settings, credentials or pause moves): a busy
 * connection's row is otherwise read once, not once per claim. Health columns the worker
 * writes itself do not move the version; the results keep their own view of them (job-results.ts).
 */
export class ConnectionRows {
  readonly #rows = new Map<string, ConnectionRow>();

  constructor(private readonly db: Kysely<IntegrationDatabase>) {}

  async refresh(jobs: readonly ClaimedJob[]): Promise<void> {
    const stale = new Set<string>();
    for (const job of jobs) {
      const cached = this.#rows.get(job.connectionId);
      if (!cached || cached.updatedAt.getTime() !== job.connectionVersion.getTime()) stale.add(job.connectionId);
    }
    if (stale.size === 0) return;
    const rows = await connectionsWithIds(this.db, [...stale]);
    if (this.#rows.size + rows.length > MAX_CACHED) this.#rows.clear();
    for (const row of rows) this.#rows.set(row.id, row);
    // A connection deleted since the claim: its jobs settle as failed (job-worker.ts).
    for (const id of stale) if (!rows.some((r) => r.id === id)) this.#rows.delete(id);
  }

  get(connectionId: string): ConnectionRow | undefined {
    return this.#rows.get(connectionId);
  }
}
