import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The at-rest key rings `npm start` gives the webhook and integration services, kept in the
 * database they protect (schema `preflight_local`), so every checkout that starts on one
 * database uses the same keys. Kept per checkout (`.preflight/local.json`) as before, a
 * second checkout on a shared database generated a key of its own, could not open what the
 * first had sealed, and that endpoint silently stopped receiving (issue 22, finding 8).
 *
 * Local development only: key material next to the ciphertext protects nothing. Deployments
 * give the services WEBHOOK_SECRET_KEYS / INTEGRATION_SECRET_KEYS from a Secret.
 */

export type RingName = 'webhook' | 'integration';

export interface LocalRings {
  webhook: string;
  integration: string;
  /** What a person should know: keys adopted from this checkout, keys that clash. */
  notes: string[];
}

export const LOCAL_KEYS_SCHEMA = 'preflight_local';

/** A new local key under an id no other checkout picks (ids are stored beside every ciphertext). */
export const newLocalKey = (): string => `local-${randomBytes(4).toString('hex')}:${randomBytes(32).toString('base64')}`;

const entries = (ring: string): Array<[string, string]> =>
  ring
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
    .map((e) => [e.slice(0, e.indexOf(':')), e] as [string, string]);

/**
 * The database's ring for each service, made on first use: from the ring this checkout kept
 * before rings moved into the database (`fromCheckout`, so its secrets still open), else a new
 * key. A ring the database already has wins; keys of this checkout's old ring that it lacks are
 * appended (they decrypt, they never encrypt), and a key with the same id but other material is
 * reported: what that checkout sealed cannot be opened and needs its secret rotated.
 */
export async function localKeyRings(
  databaseUrl: string,
  fromCheckout: Partial<Record<RingName, string>> = {},
  opts: { schema?: string } = {},
): Promise<LocalRings> {
  const schema = opts.schema ?? LOCAL_KEYS_SCHEMA;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const notes: string[] = [];
  try {
    const table = `"${schema.replaceAll('"', '""')}".key_rings`;
    await client.query(`create schema if not exists "${schema.replaceAll('"', '""')}"`);
    await client.query(`create table if not exists ${table} (name text primary key, ring text not null, created_at timestamptz not null default now())`);
    const rings = {} as Record<RingName, string>;
    for (const name of ['webhook', 'integration'] as const) {
      const mine = fromCheckout[name];
      await client.query(`insert into ${table} (name, ring) values ($1, $2) on conflict (name) do nothing`, [name, mine ?? newLocalKey()]);
      // Serialises two checkouts merging at once: the row is read and extended under its lock.
      await client.query('begin');
      try {
        const { rows } = await client.query<{ ring: string }>(`select ring from ${table} where name = $1 for update`, [name]);
        let ring = rows[0]!.ring;
        const known = new Map(entries(ring));
        for (const [id, entry] of mine ? entries(mine) : []) {
          const theirs = known.get(id);
          if (theirs === undefined) {
            ring = `${ring},${entry}`;
            notes.push(`${name}: this checkout's key '${id}' now decrypts (only) for every checkout on this database`);
          } else if (theirs !== entry) {
            notes.push(`${name}: this checkout's key '${id}' differs from the database's; what it sealed cannot be opened (rotate those secrets)`);
          }
        }
        if (ring !== rows[0]!.ring) await client.query(`update ${table} set ring = $2 where name = $1`, [name, ring]);
        await client.query('commit');
        rings[name] = ring;
      } catch (err) {
        await client.query('rollback');
        throw err;
      }
    }
    return { ...rings, notes };
  } finally {
    await client.end();
  }
}
