import { Gauge, type Registry } from 'prom-client';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { RingWatch, walkSealed, type KeyRing } from '@preflight/secret-box';
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
  const walk = async () => {
    const report = await walkSealed(keys, (after, limit) => sealedCredentialsPage(db, after, limit), { batchSize: 500 });
    const resumed = await reactivateOpened(db, report.unopened.filter((u) => u.kind === CREDENTIALS).map((u) => u.id));
    if (resumed.length > 0) logger.info({ connectionIds: resumed }, 'credentials open again; their connections resume');
    return report;
  };
  const watch = new RingWatch(walk, { logger, what: 'integration secrets', idField: 'connectionId' }).start(opts.intervalMs);
  new Gauge({
    name: 'secrets_undecryptable',
    help: "Stored secrets no key of this replica's key ring opens, by kind, as of the last check of every live connection (their jobs wait for the key).",
    labelNames: ['kind'],
    registers: [opts.registry],
    collect() {
      for (const [kind, n] of Object.entries(watch.counts([CREDENTIALS, INBOUND_SECRET]))) this.set({ kind }, n);
    },
  });
  return watch;
}
