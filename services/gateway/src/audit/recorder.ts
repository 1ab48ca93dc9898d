import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { GatewayMetrics } from '../metrics.ts';
import { deleteAuditEntriesOlderThan, insertAuditEntry, type AuditEntry } from '../storage/audit-log.ts';
import type { IdentityDb } from '../storage/schema.ts';

const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const RETRY_DELAY_MS = 1_000;

/**
 * Writes audit log entries after the answer has gone out, so an admin write never waits for its
 * entry. An insert that fails is retried once a second later; if that fails too, the entry is
 * logged whole at error level (and `gateway_audit_log_write_failures_total` counts it), so it
 * is never lost silently: the log line is the record. Shutdown waits for writes in flight.
 *
 * Entries older than the retention are deleted hourly by every replica (an idempotent DELETE
 * by the indexed `at`; replicas racing only find nothing left).
 */
export class AuditRecorder {
  private readonly pending = new Set<Promise<void>>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Kysely<IdentityDb>,
    private readonly logger: Logger,
    private readonly metrics: GatewayMetrics,
  ) {}

  record(entry: AuditEntry): void {
    const write = this.write(entry).finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  private async write(entry: AuditEntry): Promise<void> {
    try {
      await insertAuditEntry(this.db, entry);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS).unref());
    }
    try {
      await insertAuditEntry(this.db, entry);
    } catch (err) {
      this.metrics.auditLogWriteFailures.inc();
      this.logger.error({ err: (err as Error).message, audit: entry }, 'could not store an audit log entry; this line is its record');
    }
  }

  /** Starts the retention sweep (0 days: keep forever). */
  startSweep(retentionDays: number): void {
    if (retentionDays <= 0) return;
    const sweep = () => {
      deleteAuditEntriesOlderThan(this.db, retentionDays)
        .then((n) => n > 0 && this.logger.info({ deleted: n, retentionDays }, 'audit log entries past retention deleted'))
        .catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, 'audit log retention sweep failed; next try in an hour'));
    };
    sweep();
    this.sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** Waits for writes in flight (at shutdown, before the pool closes). */
  async flush(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all([...this.pending]);
  }
}
