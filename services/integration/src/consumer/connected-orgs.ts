import { Batcher } from '@preflight/db';

/** How long "has a live connection" is believed without asking again. */
const KNOWN_CONNECTED_MS = 30_000;
const MAX_KNOWN = 10_000;
const ORGS_PER_LOOKUP = 500;
/**
 * How long asks gather before their query: at a steady flow it makes one query per this many
 * ms instead of one per consumer batch. The wait only delays events of organisations without
 * "has one" remembered, which mostly have nothing to send.
 */
const GATHER_MS = 20;

/**
 * Whether an organisation has any live (not deleted, not paused) connection, so the consumer
 * can ack the events of the many organisations without one before any transaction.
 *
 * "No" is never remembered: it is asked for each event, after the event arrived, so a
 * connection committed before the event was published is always seen, exactly as when the
 * handler reads the connections in its transaction. The asks of events arriving within
 * GATHER_MS share one query. "Yes" is remembered for a while: it only sends
 * the event on to the handler, which reads the connections themselves.
 */
export class ConnectedOrgs {
  readonly #connectedAt = new Map<string, number>();
  readonly #lookups: Batcher<string, boolean>;

  constructor(
    lookup: (orgIds: string[]) => Promise<Set<string>>,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#lookups = new Batcher(async (orgIds) => {
      const live = await lookup([...new Set(orgIds)]);
      const at = this.now();
      if (this.#connectedAt.size >= MAX_KNOWN) this.#connectedAt.clear();
      for (const orgId of live) this.#connectedAt.set(orgId, at);
      return orgIds.map((orgId) => live.has(orgId));
    }, ORGS_PER_LOOKUP, GATHER_MS);
  }

  has(orgId: string): Promise<boolean> {
    const at = this.#connectedAt.get(orgId);
    if (at !== undefined && this.now() - at < KNOWN_CONNECTED_MS) return Promise.resolve(true);
    return this.#lookups.add(orgId);
  }
}
