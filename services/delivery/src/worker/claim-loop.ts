import { randomUUID } from 'node:crypto';
import { Sleeper } from '@preflight/bus';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import { claimDue, msUntilNextDue, type ClaimedDelivery } from '../storage/deliveries.ts';
import type { DeliveryDatabase } from '../storage/schema.ts';
import type { EndpointSlots } from './endpoint-slots.ts';

/** Never spin faster than this when deliveries are due but could not be claimed (locked elsewhere). */
const MIN_WAIT_MS = 20;
/** How often attempts that could not start within their time are looked for (waiting here, or due in the table). */
export const EXPIRE_EVERY_MS = 250;

export interface ClaimLoopOptions {
  db: Kysely<DeliveryDatabase>;
  logger: Logger;
  /** What this replica holds per endpoint: endpoints at their bound are left out of a claim, the others claim at most their room. */
  slots: EndpointSlots;
  maxPerEndpoint: number;
  pollIntervalMs: number;
  leaseMs: number;
  /** Rows this replica may take now, all endpoints. */
  free: () => number;
  /** Takes the rows a claim leased under `token`. */
  take: (rows: readonly ClaimedDelivery[], token: string) => void;
  /** Fails the attempts that could not start within their time; run every EXPIRE_EVERY_MS, before a claim. */
  expireOverdue: () => Promise<void>;
}

export interface ClaimLoop {
  /** Due rows may exist that nobody holds (a NOTIFY, a recorded retry): claim. */
  wake(): void;
  /** Whether a claim may find anything (for `endpointId`, or for any endpoint). */
  wanted(endpointId?: string): boolean;
  /** This replica has room again: a claim, if the last one found none and one may find something. */
  roomFreed(): void;
  /** A slot of `endpointId` ended: a claim when the endpoint has less than a round of its bound waiting, or the last claim found no room. */
  slotFreed(endpointId: string): void;
  /** Stops after the round under way. */
  stop(): Promise<void>;
}

/**
 * Claims due deliveries (skip locked, leased: retries, rows the fan-out had no room for,
 * expired leases) up to the room this replica has, and hands them to `take`. It looks when
 * woken (NOTIFY, a recorded retry, a freed slot), at the next due time it knows of, and on the
 * poll; a full page looks again at once. Every EXPIRE_EVERY_MS it first runs `expireOverdue`.
 */
export function startClaimLoop(opts: ClaimLoopOptions): ClaimLoop {
  const log = opts.logger.child({ component: 'scheduler' });
  const { slots } = opts;
  const sleeper = new Sleeper();
  let stopping = false;
  /** The last round had no room: a freed place is worth a look. */
  let roomless = false;
  /**
   * Whether a claim may find anything. Rows the fan-out hands over need none, so the loop
   * runs when due rows may exist that nobody holds: `dueAnywhere` after a wake or a claim that
   * found rows, until a claim finds none; `dueFor`, the endpoints that empty claim left out
   * (they were at their bound), until the next one. The poll claims regardless (expired leases).
   */
  let dueAnywhere = true;
  let dueFor = new Set<string>();
  /** Counts wakes, so a claim that found nothing does not forget one that came while it ran. */
  let wakes = 0;
  let expiredAt = 0;

  const wanted = (endpointId?: string) => dueAnywhere || (endpointId === undefined ? dueFor.size > 0 : dueFor.has(endpointId));

  /** One claim: how long to wait before the next (0: at once). */
  async function round(): Promise<number> {
    let waitMs = opts.pollIntervalMs;
    if (Date.now() - expiredAt >= EXPIRE_EVERY_MS) {
      expiredAt = Date.now();
      await opts.expireOverdue();
    }
    const room = opts.free();
    roomless = room <= 0;
    if (room > 0) {
      const exclude = slots.saturated();
      const roomOf = new Map<string, number>();
      for (const id of slots.known()) roomOf.set(id, slots.room(id));
      const token = randomUUID();
      const wakesBefore = wakes;
      const { rows: claimed, fetched } = await claimDue(opts.db, { limit: room, excludeEndpoints: exclude, room: roomOf, defaultRoom: 2 * opts.maxPerEndpoint, leaseMs: opts.leaseMs, token });
      opts.take(claimed, token);
      if (fetched > 0) dueAnywhere = true;
      else {
        // Nothing due outside `exclude`, unless something woke claims meanwhile.
        if (wakes === wakesBefore) dueAnywhere = false;
        dueFor = new Set(exclude);
      }
      // A full page may have hidden due rows behind rows of endpoints that just reached
      // their bound; those endpoints are left out of the next claim, so looking again at
      // once makes progress instead of waiting for a finished attempt.
      if (claimed.length === room || (fetched === room && claimed.length < fetched)) return 0;
      // Only when nothing could be taken: otherwise the attempts just taken wake the loop
      // when they finish, and it looks again then (one query less per claim).
      if (claimed.length === 0) {
        const dueInMs = await msUntilNextDue(opts.db, slots.saturated());
        if (dueInMs !== undefined) waitMs = Math.min(opts.pollIntervalMs, Math.max(MIN_WAIT_MS, Math.ceil(dueInMs)));
      }
    }
    // Waiting attempts, or saturated endpoints' due rows, may run out of time before anything wakes the loop.
    if (slots.queued > 0 || slots.saturated().length > 0) waitMs = Math.min(waitMs, EXPIRE_EVERY_MS);
    return waitMs;
  }

  const loop = (async () => {
    while (!stopping) {
      let waitMs = opts.pollIntervalMs;
      try {
        waitMs = await round();
      } catch (err) {
        if (!stopping) log.warn({ err: (err as Error).message }, 'claiming deliveries failed; retrying');
      }
      if (waitMs > 0 && !stopping) await sleeper.wait(waitMs);
    }
  })();

  return {
    wake() {
      dueAnywhere = true;
      wakes += 1;
      sleeper.wake();
    },
    wanted,
    roomFreed() {
      if (roomless && wanted()) sleeper.wake();
    },
    slotFreed(endpointId) {
      if ((slots.waiting(endpointId) < opts.maxPerEndpoint && wanted(endpointId)) || (roomless && wanted())) sleeper.wake();
    },
    async stop() {
      stopping = true;
      sleeper.wake();
      await loop;
    },
  };
}
