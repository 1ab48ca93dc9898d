import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';

/** A lookup that answers the checked address whatever is asked: the connection is pinned. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

const IDLE_MS = 60_000;
const MAX_AGENTS = 1_000;

interface Entry {
  agent: Agent;
  lastUsed: number;
}

/**
 * Keep-alive agents, one per checked address. An agent can only ever connect to the address it
 * is keyed by (its lookup is pinned), so reusing it keeps the DNS-rebinding protection while
 * sparing a TCP (and TLS) handshake per attempt — the dominant cost of a delivery. Inside an
 * agent each origin (scheme, host, port) has its own connection pool, so a hanging endpoint
 * never holds a healthy one's sockets. Agents idle for a minute are closed.
 */
export class PinnedAgents {
  private readonly agents = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly timeoutMs: number) {
    this.sweeper = setInterval(() => this.sweep(Date.now() - IDLE_MS), IDLE_MS);
    this.sweeper.unref();
  }

  for(address: string, family: 4 | 6): Agent {
    const key = `${family}|${address}`;
    const now = Date.now();
    const existing = this.agents.get(key);
    if (existing) {
      existing.lastUsed = now;
      return existing.agent;
    }
    if (this.agents.size >= MAX_AGENTS) this.sweep(Number.POSITIVE_INFINITY, 1);
    const agent = new Agent({
      connect: { lookup: pinnedLookup(address, family), timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      pipelining: 1,
    });
    this.agents.set(key, { agent, lastUsed: now });
    return agent;
  }

  /** Closes agents last used before `before` (at most `limit`, oldest first). */
  private sweep(before: number, limit = Number.POSITIVE_INFINITY): void {
    const stale = [...this.agents.entries()].filter(([, e]) => e.lastUsed < before).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [key, entry] of stale.slice(0, limit)) {
      this.agents.delete(key);
      void entry.agent.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(all.map((e) => e.agent.destroy().catch(() => undefined)));
  }
}
