import { Counter, Gauge, type Registry } from 'prom-client';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { RingWatch, walkSealed, type KeyRing } from '@preflight/secret-box';
import { PREVIOUS_SIGNING_SECRET, SIGNING_SECRET, sealedSecretsPage } from '../storage/sealed-secrets.ts';
import type { WebhookDatabase } from '../storage/schema.ts';
import type { DecryptFailureCounter } from '../views/endpoint-secrets.ts';

const KINDS = [SIGNING_SECRET, PREVIOUS_SIGNING_SECRET];

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
  const { db, keys } = opts;
  const walk = () => walkSealed(keys, (after, limit) => sealedSecretsPage(db, after, limit), { batchSize: 500 });
  const watch = new RingWatch(walk, { logger: opts.logger, what: 'webhook secrets', idField: 'webhookId' }).start(opts.intervalMs);
  new Gauge({
    name: 'secrets_undecryptable',
    help: "Stored secrets no key of this replica's key ring opens, by kind, as of the last check of every row (their deliveries wait for the key).",
    labelNames: ['kind'],
    registers: [opts.registry],
    collect() {
      for (const [kind, n] of Object.entries(watch.counts(KINDS))) this.set({ kind }, n);
    },
  });
  const failures = new Counter({
    name: 'secret_decrypt_failures_total',
    help: 'Secrets this replica could not open when they were needed, by kind.',
    labelNames: ['kind'],
    registers: [opts.registry],
  });
  for (const kind of KINDS) failures.inc({ kind }, 0);
  return { failed: (kind) => failures.inc({ kind }), watch };
}
