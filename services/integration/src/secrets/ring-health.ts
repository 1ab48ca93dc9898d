import { Gauge, type Registry } from 'prom-client';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { RingWatch, unopenedByKind, walkSealed, type KeyRing } from '@preflight/secret-box';
import { CREDENTIALS, INBOUND_SECRET, reactivateOpened, sealedCredentialsPage } from '../storage/sealed-credentials.ts';
import type { IntegrationDatabase } from '../storage/schema.ts';

/**
 * Whether this replica's INTEGRATION_SECRET_KEYS opens every live connection's credentials and
 * inbound secret, checked every `intervalMs` by opening each one: `secrets_undecryptable{kind}`
 * (per replica: the alert takes the max). A connection whose jobs waited for its credentials
 * to open (`needs-attention`) resumes at the first check that opens them, so bringing the key
 * back is the whole repair.
 */
export function startRingHealth(opts: { db: Kysely<IntegrationDatabase>; keys: KeyRing; registry: Registry; logger: Logger; intervalMs: number }): RingWatch {
  const { db, keys, logger } = opts;
  const watch = new RingWatch(
    async () => {
      const report = await walkSealed(keys, (after, limit) => sealedCredentialsPage(db, after, limit), { batchSize: 500 });
      const resumed = await reactivateOpened(db, report.unopened.filter((u) => u.kind === CREDENTIALS).map((u) => u.id));
      if (resumed.length > 0) logger.info({ connectionIds: resumed }, 'credentials open again; their connections resume');
      return report;
    },
    (report) => {
      if (report.unopened.length === 0) return;
      const sample = report.unopened.slice(0, 20).map(({ id, kind, keyId }) => ({ connectionId: id, kind, keyId }));
      logger.error({ undecryptable: report.unopened.length, sample }, 'integration secrets no configured key opens: their jobs wait (docs/operations.md, "PreflightSecretsUndecryptable")');
    },
    (err) => logger.warn({ err: (err as Error).message }, 'checking the stored integration secrets against the key ring failed; tried again later'),
  ).start(opts.intervalMs);
  new Gauge({
    name: 'secrets_undecryptable',
    help: 'Stored secrets no key of this replica\'s key ring opens, by kind, as of the last check of every live connection (their jobs wait for the key).',
    labelNames: ['kind'],
    registers: [opts.registry],
    collect() {
      const counts = watch.last ? unopenedByKind(watch.last) : {};
      for (const kind of [CREDENTIALS, INBOUND_SECRET]) this.set({ kind }, counts[kind] ?? 0);
    },
  });
  return watch;
}
