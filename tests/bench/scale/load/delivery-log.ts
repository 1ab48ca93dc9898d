import type pg from 'pg';
import { KIND, hashSql, idSql, type ScalePlan } from './plan.ts';
import { insertChunks } from './sessions.ts';

/**
 * The delivery log (services/delivery migrations 0001–0005, `delivery_attempts`): attempts
 * spread evenly over the last `logDays` days, each event fanned out to every endpoint of the
 * webhook organisation (consecutive attempts share an event), 3 % of them failed with a 503.
 * Attempt ids are UUIDv7 of their attempt time (domain/ids.ts), as the retention sweep's key
 * range (storage/retention.ts `v7Floor`) expects; delivery ids are made up (their delivery rows
 * are long gone: finished deliveries are deleted, their attempts stay). No envelopes: they are
 * kept only for deliveries with retries left.
 */

const CHUNK = 250_000;

/** A v7 uuid of millisecond `t` (bigint SQL) with row number `n` in its random bits: unique, ascending in (t, n). */
function v7Sql(t: string, n: string): string {
  const th = `lpad(to_hex((${t})::bigint), 12, '0')`;
  const nh = `lpad(to_hex((${n})::bigint), 18, '0')`;
  return `(substr(${th}, 1, 8) || '-' || substr(${th}, 9, 4) || '-7' || substr(${nh}, 1, 3) || '-8' || substr(${nh}, 4, 3) || '-' || substr(${nh}, 7, 12))::uuid`;
}

/** One statement's worth of attempts: numbers [from, to) of a run of `count` numbered from `first`. */
interface AttemptChunk {
  from: number;
  to: number;
  first: number;
  count: number;
  endpoints: string[];
}

/** Inserts one chunk, its attempts spread over [nowMs − logDays, nowMs) by their place in the run. */
async function insertAttempts(client: pg.Client, schema: string, c: AttemptChunk, o: { nowMs: number; logDays: number }): Promise<void> {
  const spanMs = o.logDays * 86_400_000;
  const fanout = c.endpoints.length;
  // i: the attempt's place in time (0 oldest); n: its global number (ids unique across runs).
  await client.query(
    `insert into "${schema}".delivery_attempts
       (attempt_id, delivery_id, event_id, event_type, endpoint_id, attempt, attempted_at, status_code, duration_ms, response_body, error, outcome, trigger)
     select ${v7Sql('t', 'n')}, ${idSql(KIND.delivery, 'n')}, ${idSql(KIND.event, `n / ${fanout}`)}::text, 'IssueCreated',
       ($1::uuid[])[1 + i % ${fanout}], 1, to_timestamp(t / 1000.0),
       case when failed then 503 else 204 end, 15 + ${hashSql('n', 5, 200)},
       case when failed then 'Service Unavailable' end, null, case when failed then 'failed' else 'delivered' end, 'event'
     from (
       select i, i + ${c.first} as n, (${o.nowMs - spanMs} + (i * ${spanMs}::bigint) / ${c.count})::bigint as t, ${hashSql('i', 4, 100)} < 3 as failed
       from generate_series(${c.from}::bigint, ${c.to - 1}) as i
     ) g`,
    [c.endpoints],
  );
}

const chunksOf = (first: number, count: number, endpoints: string[]): AttemptChunk[] =>
  Array.from({ length: Math.ceil(count / CHUNK) }, (_, k) => ({ from: k * CHUNK, to: Math.min(count, (k + 1) * CHUNK), first, count, endpoints }));

/**
 * The indexes of a table that back no constraint, dropped while `fn` loads it and built again
 * afterwards from their own definitions: one sorted build is much cheaper than an entry per
 * inserted row. The primary key stays (attempt ids ascend, so its inserts append).
 */
async function withoutSecondaryIndexes(client: pg.Client, schema: string, table: string, fn: () => Promise<void>): Promise<void> {
  const { rows } = await client.query<{ name: string; def: string }>(
    `select c.relname as name, pg_get_indexdef(i.indexrelid) as def
     from pg_index i join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid join pg_namespace ns on ns.oid = t.relnamespace
     where ns.nspname = $1 and t.relname = $2 and not i.indisprimary and not i.indisunique`,
    [schema, table],
  );
  for (const r of rows) await client.query(`drop index "${schema}"."${r.name}"`);
  await fn();
  await client.query(`set maintenance_work_mem = '256MB'`);
  for (const r of rows) await client.query(r.def);
}

/**
 * The busy endpoints' attempts and the quiet one's, CHUNK rows a statement, spread over `clients`.
 */
export async function loadDeliveryLog(
  clients: pg.Client[],
  schema: string,
  p: ScalePlan,
  o: { busy: string[]; quiet: string; nowMs: number },
  log: (msg: string) => void,
): Promise<void> {
  const chunks = [...chunksOf(0, p.attempts, o.busy), ...chunksOf(p.attempts, p.small.attempts, [o.quiet])];
  const total = p.attempts + p.small.attempts;
  await withoutSecondaryIndexes(clients[0]!, schema, 'delivery_attempts', () =>
    insertChunks(clients, chunks, {
      rowsOf: (c) => c.to - c.from,
      total,
      insert: (client, c) => insertAttempts(client, schema, c, { nowMs: o.nowMs, logDays: p.logDays }),
      progress: (done) => log(`delivery schema: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} attempts`),
    }),
  );
  log('delivery schema: its secondary indexes built again');
}
