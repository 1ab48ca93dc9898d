import { Counter, Gauge, type Registry } from 'prom-client';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { RingWatch, unopenedByKind, walkSealed, type KeyRing } from '@preflight/secret-box';
import { PREVIOUS_SIGNING_SECRET, SIGNING_SECRET, sealedSecretsPage } from '../storage/sealed-secrets.ts';
import type { WebhookDatabase } from '../storage/schema.ts';
import type { DecryptFailureCounter } from '../views/endpoint-secrets.ts';

/**
 * Whether this replica's WEBHOOK_SECRET_KEYS opens every stored signing secret: every
 * `intervalMs` each one is opened (a key with the right id and the wrong material only shows
 * that way), and `secrets_undecryptable{kind}` holds how many did not; the internal routes
 * count each failure as it happens (`secret_decrypt_failures_total{kind}`). Per replica: a
 * replica given the wrong key reports what it cannot open, so the alert takes the max.
 */
export function startRingHealth(opts: { db: Kysely<WebhookDatabase>; keys: KeyRing; registry: Registry; logger: Logger; intervalMs: number }): {
  failed: DecryptFailureCounter;
  watch: RingWatch;
} {
  const { db, keys, logger } = opts;
  const watch = new RingWatch(
    () => walkSealed(keys, (after, limit) => sealedSecretsPage(db, after, limit), { batchSize: 500 }),
    (report) => {
      if (report.unopened.length === 0) return;
      const sample = report.unopened.slice(0, 20).map(({ id, kind, keyId }) => ({ webhookId: id, kind, keyId }));
      logger.error({ undecryptable: report.unopened.length, sample }, 'webhook secrets no configured key opens: their deliveries wait (docs/operations.md, "PreflightSecretsUndecryptable")');
    },
    (err) => logger.warn({ err: (err as Error).message }, 'checking the stored webhook secrets against the key ring failed; tried again later'),
  ).start(opts.intervalMs);
  new Gauge({
    name: 'secrets_undecryptable',
    help: 'Stored secrets no key of this replica\'s key ring opens, by kind, as of the last check of every row (their deliveries wait for the key).',
    labelNames: ['kind'],
    registers: [opts.registry],
    collect() {
      const counts = watch.last ? unopenedByKind(watch.last) : {};
      for (const kind of [SIGNING_SECRET, PREVIOUS_SIGNING_SECRET]) this.set({ kind }, counts[kind] ?? 0);
    },
  });
  const failures = new Counter({
    name: 'secret_decrypt_failures_total',
    help: 'Secrets this replica could not open when they were needed, by kind.',
    labelNames: ['kind'],
    registers: [opts.registry],
  });
  for (const kind of [SIGNING_SECRET, PREVIOUS_SIGNING_SECRET]) failures.inc({ kind }, 0);
  return { failed: (kind) => failures.inc({ kind }), watch };
}
