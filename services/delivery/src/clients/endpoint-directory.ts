import type { Endpoint, WebhookClient } from './webhook-client.ts';

/**
 * The webhook service's answer to "which enabled endpoints of this organisation receive this
 * event type" (with secrets), kept for at most `ttlMs` per (organisation, event type).
 *
 * Asking once per event and once per attempt would cost, each time, an HTTP call, a query and
 * the decryption of every one of the organisation's secrets in the webhook service: work on
 * both services that grows with every delivery. Within the TTL the answer may be stale, so
 * a deleted, disabled or unsubscribed endpoint, a new endpoint or a changed filter takes
 * effect within `ttlMs` (README, "Endpoint cache"). To keep that window from costing a retry:
 * whoever learns that an endpoint changed (an outcome that disabled it, the webhook service's
 * signal) drops the organisation's entries, so the next lookup asks again; a failed attempt,
 * which only suggests a change, has them `refresh`ed in the background, so the retry (a second
 * or more later) sees the new answer while the organisation's healthy endpoints never wait
 * for it. Concurrent misses of one key share one call; failures are not cached.
 */
interface Entry {
  at: number;
  endpoints: Promise<Endpoint[]>;
  /** The answer by endpoint id once it has arrived: a lookup within the TTL needs no promise. */
  byId?: Map<string, Endpoint>;
}

const indexed = (entry: Entry, endpoints: Endpoint[]): Entry => {
  entry.byId = new Map(endpoints.map((e) => [e.id, e]));
  return entry;
};

export class EndpointDirectory {
  readonly #entries = new Map<string, Entry>();
  readonly #byOrg = new Map<string, Set<string>>();
  /** Keys being refreshed in the background (one call each at a time). */
  readonly #refreshing = new Set<string>();
  /** When expired answers were last dropped: at most once per TTL, on a miss. */
  #sweptAt = 0;

  constructor(
    private readonly client: Pick<WebhookClient, 'endpointsFor'>,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  endpointsFor(orgId: string, eventType: string): Promise<Endpoint[]> {
    if (this.ttlMs <= 0) return this.client.endpointsFor(orgId, eventType);
    const key = `${orgId} ${eventType}`;
    const now = this.now();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.endpoints;
    if (hit) this.#delete(orgId, key);
    // Expired answers go within a TTL or two, not only once the map is full: what is held
    // is the endpoints of the organisations seen lately, not of every one ever seen.
    if (now - this.#sweptAt >= this.ttlMs || this.#entries.size >= this.maxEntries) this.#evictExpired(now);
    const endpoints = this.client.endpointsFor(orgId, eventType);
    const entry: Entry = { at: now, endpoints };
    this.#entries.set(key, entry);
    endpoints.then((list) => indexed(entry, list)).catch(() => undefined);
    let keys = this.#byOrg.get(orgId);
    if (!keys) this.#byOrg.set(orgId, (keys = new Set()));
    keys.add(key);
    endpoints.catch(() => {
      if (this.#entries.get(key) === entry) this.#delete(orgId, key);
    });
    return endpoints;
  }

  /** One endpoint as it is now (within the TTL); undefined when deleted, disabled or not subscribed to `eventType`. */
  async endpoint(orgId: string, eventType: string, endpointId: string): Promise<Endpoint | undefined> {
    return (await this.endpointsFor(orgId, eventType)).find((e) => e.id === endpointId);
  }

  /**
   * `endpoint` without a promise when the answer is at hand (cached within the TTL and
   * arrived): `{ endpoint }`, its endpoint undefined as in `endpoint`; undefined when the
   * answer would have to be waited for. Every attempt looks its endpoint up: on that path
   * neither a promise nor a search of the list is wanted.
   */
  cachedEndpoint(orgId: string, eventType: string, endpointId: string): { endpoint: Endpoint | undefined } | undefined {
    if (this.ttlMs <= 0) return undefined;
    const hit = this.#entries.get(`${orgId} ${eventType}`);
    if (!hit?.byId || this.now() - hit.at >= this.ttlMs) return undefined;
    return { endpoint: hit.byId.get(endpointId) };
  }

  /**
   * Asks again, in the background, for each of the organisation's cached answers, and swaps each
   * in when it arrives (with a fresh TTL); meanwhile, and if the call fails, the cached answer
   * stands. Lookups never wait for it.
   */
  refresh(orgId: string): void {
    if (this.ttlMs <= 0) return;
    for (const key of this.#byOrg.get(orgId) ?? []) {
      if (this.#refreshing.has(key)) continue;
      this.#refreshing.add(key);
      const eventType = key.slice(key.indexOf(' ') + 1);
      const at = this.now();
      const replaced = this.#entries.get(key);
      this.client
        .endpointsFor(orgId, eventType)
        .then((endpoints) => {
          // Only over the answer it replaces: one dropped or renewed meanwhile (a signal, an
          // expiry) is newer than this call, or a lookup asks for itself.
          if (this.#entries.get(key) === replaced) this.#entries.set(key, indexed({ at, endpoints: Promise.resolve(endpoints) }, endpoints));
        })
        .catch(() => undefined)
        .finally(() => this.#refreshing.delete(key));
    }
  }

  /**
   * Drops one endpoint from the organisation's cached answers (an outcome report said it is
   * disabled now); its neighbours' answers stay, so their attempts do not wait for a fetch.
   * An answer still on its way is dropped whole.
   */
  forget(orgId: string, endpointId: string): void {
    for (const key of [...(this.#byOrg.get(orgId) ?? [])]) {
      const entry = this.#entries.get(key);
      if (!entry?.byId) {
        this.#delete(orgId, key);
        continue;
      }
      if (!entry.byId.has(endpointId)) continue;
      const kept = [...entry.byId.values()].filter((e) => e.id !== endpointId);
      this.#entries.set(key, indexed({ at: entry.at, endpoints: Promise.resolve(kept) }, kept));
    }
  }

  /** Forgets everything known about the organisation's endpoints. */
  invalidate(orgId: string): void {
    const keys = this.#byOrg.get(orgId);
    if (!keys) return;
    for (const key of keys) this.#entries.delete(key);
    this.#byOrg.delete(orgId);
  }

  #delete(orgId: string, key: string): void {
    this.#entries.delete(key);
    const keys = this.#byOrg.get(orgId);
    keys?.delete(key);
    if (keys?.size === 0) this.#byOrg.delete(orgId);
  }

  /** Answers held (per organisation and event type). */
  get size(): number {
    return this.#entries.size;
  }

  #evictExpired(now: number): void {
    this.#sweptAt = now;
    for (const [key, entry] of this.#entries) {
      if (now - entry.at >= this.ttlMs) this.#delete(key.slice(0, key.indexOf(' ')), key);
    }
    // Still full of live entries: drop the oldest (Map keeps insertion order).
    while (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#delete(oldest.slice(0, oldest.indexOf(' ')), oldest);
    }
  }
}
