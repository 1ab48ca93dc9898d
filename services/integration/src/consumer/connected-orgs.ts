import { sql, type Kysely } from '@preflight/db';
import type { IntegrationDatabase } from '../storage/schema.ts';

/** The NOTIFY channel the connections table's trigger (migration 0002) signals on. */
export const connectionsChannel = (schema: string): string => `${schema}_connections`;

/** How long an answer is trusted when no change signal came: the bound if a NOTIFY is lost. */
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  at: number;
  connected: Promise<boolean>;
}

/**
 * Whether an organisation has any live (not deleted, not paused) connection, so the consumer
 * can ack the events of the many organisations without one before any transaction.
 *
 * Every change to a connection's liveness notifies `connectionsChannel` in its own commit (a
 * trigger, whatever the writer), and every replica's listener forgets everything it knew; so a
 * connection created or resumed counts for the events consumed after its commit reached the
 * listener, and at the latest after TTL_MS if that signal was lost. A listener (re)connecting
 * forgets too: what was sent while it was down is lost.
 */
export class ConnectedOrgs {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly lookup: (orgId: string) => Promise<boolean>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  has(orgId: string): Promise<boolean> {
    const now = this.now();
    const hit = this.#entries.get(orgId);
    if (hit && now - hit.at < TTL_MS) return hit.connected;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    const entry: Entry = { at: now, connected: this.lookup(orgId) };
    this.#entries.set(orgId, entry);
    // A failed lookup is not kept: the next event asks again.
    entry.connected.catch(() => {
      if (this.#entries.get(orgId) === entry) this.#entries.delete(orgId);
    });
    return entry.connected;
  }

  forgetAll(): void {
    this.#entries.clear();
  }
}

export async function hasLiveConnection(db: Kysely<IntegrationDatabase>, orgId: string): Promise<boolean> {
  const row = await db
    .selectFrom('connections')
    .select(sql<number>`1`.as('one'))
    .where('org_id', '=', orgId)
    .where('deleted_at', 'is', null)
    .where('paused', '=', false)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
