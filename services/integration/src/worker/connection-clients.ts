import { openSecret, type KeyRing } from '@preflight/secret-box';
import { CHAT_PROVIDERS, TRACKER_PROVIDERS, isTrackerKind } from '../providers/index.ts';
import type { ChatClient, ChatKind, SafeFetch, TrackerClient, TrackerKind } from '../providers/provider.ts';
import { credentialsContext } from '../domain/sealing.ts';
import { credentialsOf, type ConnectionRow } from '../storage/connections.ts';

interface Cached {
  version: number;
  client: ChatClient | TrackerClient;
}

const MAX_CACHED = 5_000;

/**
 * The provider client of each connection, built from its row (credentials opened once per
 * version of the row, not per call). A row whose credentials cannot be opened throws
 * `SecretUnavailableError`: the key that sealed them is not in INTEGRATION_SECRET_KEYS.
 */
export class ConnectionClients {
  readonly #cache = new Map<string, Cached>();

  constructor(
    private readonly keys: KeyRing,
    private readonly fetch: SafeFetch,
  ) {}

  #client(row: ConnectionRow): ChatClient | TrackerClient {
    const version = row.updatedAt.getTime();
    const cached = this.#cache.get(row.id);
    if (cached && cached.version === version) return cached.client;
    const credentials = JSON.parse(openSecret(this.keys, credentialsOf(row), credentialsContext(row.id))) as Record<string, unknown>;
    const client = isTrackerKind(row.kind)
      ? TRACKER_PROVIDERS[row.kind].client(row.config, credentials, this.fetch)
      : CHAT_PROVIDERS[row.kind as ChatKind].client(row.config, credentials, this.fetch);
    if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
    this.#cache.set(row.id, { version, client });
    return client;
  }

  chat(row: ConnectionRow): ChatClient {
    if (isTrackerKind(row.kind)) throw new Error(`connection ${row.id} is a ${row.kind} tracker, not a chat channel`);
    return this.#client(row) as ChatClient;
  }

  tracker(row: ConnectionRow & { kind: TrackerKind }): TrackerClient {
    return this.#client(row) as TrackerClient;
  }

  forget(connectionId: string): void {
    this.#cache.delete(connectionId);
  }
}
