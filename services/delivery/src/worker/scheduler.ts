import { randomUUID } from 'node:crypto';
import { PinnedAgents } from '../attempt/agents.ts';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { post, type PostResult } from '../attempt/post.ts';
import { resolveTarget, type Resolver } from '../attempt/target.ts';
import type { WebhookClient } from '../clients/webhook-client.ts';
import { nextStep } from '../domain/schedule.ts';
import { deliveryHeaders } from '../domain/signatures.ts';
import { claimDue, msUntilNextDue, recordAttempt, releaseLease, type ClaimedDelivery } from '../storage/deliveries.ts';
import type { AttemptOutcome, DeliveryDatabase } from '../storage/schema.ts';
import { BreakerOpen, UnhealthyResult, type Breakers } from './breakers.ts';
import type { DeliveryMetrics } from './metrics.ts';
import { Sleeper } from '@preflight/bus';

export interface SchedulerOptions {
  db: Kysely<DeliveryDatabase>;
  webhooks: WebhookClient;
  breakers: Breakers;
  metrics: DeliveryMetrics;
  logger: Logger;
  attemptTimeoutMs: number;
  /** Waits between attempts; attempts in all = length + 1. */
  retrySchedule: readonly number[];
  maxPerEndpoint: number;
  workers: number;
  pollIntervalMs: number;
  allowPrivate: boolean;
  resolve?: Resolver;
  /** Called when a delivery became final (delivered or failed): its outcome is to be reported. */
  onFinal: () => void;
}

export interface Scheduler {
  /** New deliveries may be due (NOTIFY). */
  wake(): void;
  /** Stops claiming and waits for the attempts in flight to finish and be recorded. */
  stop(): Promise<void>;
}

/** How long the webhook service may be unreachable before a claimed delivery is tried again. */
const DEPENDENCY_RETRY_MS = 2_000;
/** Never spin faster than this when deliveries are due but could not be claimed (locked elsewhere). */
const MIN_WAIT_MS = 20;

/**
 * The scheduler: claims due deliveries (skip locked, leased), dispatches each attempt without
 * waiting for it, and keeps claiming while slots are free. Bounded in all (`workers`) and per
 * endpoint (`maxPerEndpoint`, 1 while its breaker is half-open); an endpoint at its bound is
 * left out of the claim, so a slow or dead endpoint holds only its own slots and never the
 * rows or slots of healthy endpoints. An open breaker moves that endpoint's due attempts to
 * its half-open time without using an attempt. Wakes on NOTIFY, on a finished attempt, at the
 * next due time it knows of, and on the poll.
 */
export function startScheduler(opts: SchedulerOptions): Scheduler {
  const log = opts.logger.child({ component: 'scheduler' });
  // A lease outlives any attempt (the endpoint lookup, then the attempt's own deadline).
  const leaseMs = opts.attemptTimeoutMs + 30_000;
  const agents = new PinnedAgents(opts.attemptTimeoutMs);
  const sleeper = new Sleeper();
  const perEndpoint = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let stopping = false;

  const busy = (endpointId: string) => perEndpoint.get(endpointId) ?? 0;
  const saturated = () => [...perEndpoint].filter(([id, n]) => n >= opts.breakers.capacity(id, opts.maxPerEndpoint)).map(([id]) => id);

  function dispatch(row: ClaimedDelivery, token: string): void {
    perEndpoint.set(row.endpoint_id, busy(row.endpoint_id) + 1);
    const p: Promise<void> = attempt(row, token)
      .catch((err: unknown) => log.error({ deliveryId: row.id, endpointId: row.endpoint_id, err: (err as Error).message }, 'attempt could not be recorded; the lease will expire and it is retried'))
      .finally(() => {
        const n = busy(row.endpoint_id) - 1;
        if (n > 0) perEndpoint.set(row.endpoint_id, n);
        else perEndpoint.delete(row.endpoint_id);
        running.delete(p);
        sleeper.wake();
      });
    running.add(p);
  }

  async function attempt(row: ClaimedDelivery, token: string): Promise<void> {
    // The endpoint as it is now: the secret may have been rotated, the endpoint disabled or deleted.
    let endpoint;
    try {
      endpoint = (await opts.webhooks.endpointsFor(row.org_id, row.event_type)).find((e) => e.id === row.endpoint_id);
    } catch (err) {
      log.warn({ deliveryId: row.id, endpointId: row.endpoint_id, err: (err as Error).message }, 'webhook service unavailable; attempt postponed');
      await releaseLease(opts.db, row.id, token, new Date(Date.now() + DEPENDENCY_RETRY_MS));
      return;
    }
    const number = row.attempt_count + 1;
    const attemptId = randomUUID();
    const attemptedAt = new Date();
    if (!endpoint) {
      await finish(row, token, {
        attemptId,
        number,
        attemptedAt,
        durationMs: 0,
        result: { statusCode: null, responseBody: null, error: 'endpoint deleted, disabled or no longer subscribed to this event; delivery cancelled', delivered: false, unhealthy: false },
        outcome: 'cancelled',
      });
      return;
    }
    const blocked = opts.breakers.blockedUntil(row.endpoint_id);
    if (blocked) {
      await releaseLease(opts.db, row.id, token, blocked);
      return;
    }

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('attempt timed out')), opts.attemptTimeoutMs);
    const started = performance.now();
    let result: PostResult;
    let outcome: AttemptOutcome;
    try {
      const url = new URL(row.url);
      const target = await resolveTarget(url, { allowPrivate: opts.allowPrivate, signal: controller.signal, ...(opts.resolve ? { resolve: opts.resolve } : {}) });
      if (!target.ok) {
        result = { statusCode: null, responseBody: null, error: target.reason, delivered: false, unhealthy: false };
        outcome = target.refused ? 'refused' : 'failed';
      } else {
        const body = Buffer.from(row.envelope, 'utf8');
        const headers = deliveryHeaders({ secret: endpoint.secret, eventType: row.event_type, envelopeId: row.event_id, attemptId, body });
        result = await opts.breakers.fire(row.endpoint_id, async () => {
          const r = await post(url, target, body, headers, { signal: controller.signal, timeoutMs: opts.attemptTimeoutMs, agents });
          if (r.unhealthy) throw new UnhealthyResult(r);
          return r;
        });
        outcome = result.delivered ? 'delivered' : 'failed';
      }
    } catch (err) {
      if (err instanceof BreakerOpen) {
        clearTimeout(timer);
        await releaseLease(opts.db, row.id, token, err.retryAt);
        return;
      }
      const message = controller.signal.aborted ? `timed out after ${opts.attemptTimeoutMs} ms` : (err as Error).message;
      result = { statusCode: null, responseBody: null, error: message, delivered: false, unhealthy: false };
      outcome = 'failed';
    } finally {
      clearTimeout(timer);
    }
    await finish(row, token, { attemptId, number, attemptedAt, durationMs: Math.round(performance.now() - started), result, outcome });
  }

  async function finish(
    row: ClaimedDelivery,
    token: string,
    a: { attemptId: string; number: number; attemptedAt: Date; durationMs: number; result: PostResult; outcome: AttemptOutcome },
  ): Promise<void> {
    const step = a.outcome === 'cancelled' ? ({ kind: 'cancelled' } as const) : nextStep(a.result.delivered, a.number, opts.retrySchedule);
    const next =
      step.kind === 'retry'
        ? { status: 'pending' as const, retryInMs: step.waitMs }
        : { status: step.kind };
    const held = await recordAttempt(
      opts.db,
      token,
      {
        attemptId: a.attemptId,
        deliveryId: row.id,
        eventId: row.event_id,
        eventType: row.event_type,
        endpointId: row.endpoint_id,
        attempt: a.number,
        attemptedAt: a.attemptedAt,
        statusCode: a.result.statusCode,
        durationMs: a.durationMs,
        responseBody: a.result.responseBody,
        error: a.result.error,
        outcome: a.outcome,
      },
      next,
    );
    opts.metrics.attempts.inc({ event_type: row.event_type, outcome: a.outcome });
    if (a.outcome !== 'cancelled') opts.metrics.attemptDuration.observe(a.durationMs / 1000);
    const fields = { deliveryId: row.id, eventId: row.event_id, endpointId: row.endpoint_id, attempt: a.number, attemptId: a.attemptId, outcome: a.outcome, statusCode: a.result.statusCode, durationMs: a.durationMs };
    if (!held) {
      log.warn(fields, 'lease lost during the attempt; attempt logged, delivery left to its new owner');
      return;
    }
    if (step.kind === 'retry') log.info({ ...fields, error: a.result.error, retryInMs: step.waitMs }, 'attempt failed; retry scheduled');
    else {
      opts.metrics.deliveries.inc({ event_type: row.event_type, outcome: step.kind });
      log.info({ ...fields, error: a.result.error, final: step.kind }, 'delivery final');
      if (step.kind !== 'cancelled') opts.onFinal();
    }
  }

  const loop = (async () => {
    while (!stopping) {
      let waitMs = opts.pollIntervalMs;
      let more = false;
      try {
        const free = opts.workers - running.size;
        if (free > 0) {
          const token = randomUUID();
          const claimed = await claimDue(opts.db, {
            limit: free,
            excludeEndpoints: saturated(),
            leaseMs,
            token,
            decide(rows) {
              const take: ClaimedDelivery[] = [];
              const defer: Array<{ id: string; until: Date }> = [];
              const reserved = new Map<string, number>();
              for (const row of rows) {
                const until = opts.breakers.blockedUntil(row.endpoint_id);
                if (until) {
                  defer.push({ id: row.id, until });
                  continue;
                }
                const n = busy(row.endpoint_id) + (reserved.get(row.endpoint_id) ?? 0);
                if (n < opts.breakers.capacity(row.endpoint_id, opts.maxPerEndpoint)) {
                  take.push(row);
                  reserved.set(row.endpoint_id, (reserved.get(row.endpoint_id) ?? 0) + 1);
                }
              }
              return { take, defer };
            },
          });
          for (const row of claimed) dispatch(row, token);
          more = claimed.length === free;
          if (!more) {
            const dueInMs = await msUntilNextDue(opts.db, saturated());
            if (dueInMs !== undefined) waitMs = Math.min(opts.pollIntervalMs, Math.max(MIN_WAIT_MS, Math.ceil(dueInMs)));
          }
        }
      } catch (err) {
        if (!stopping) log.warn({ err: (err as Error).message }, 'claiming deliveries failed; retrying');
      }
      if (!more && !stopping) await sleeper.wait(waitMs);
    }
    await Promise.all(running);
  })();

  return {
    wake: () => sleeper.wake(),
    async stop() {
      stopping = true;
      sleeper.wake();
      await loop;
      await agents.close();
    },
  };
}
