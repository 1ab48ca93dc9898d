import type pg from 'pg';
import { KIND, hashSql, idSql, type ScalePlan } from './plan.ts';

/**
 * The delivery log (services/delivery migrations 0001–0005, `delivery_attempts`): attempts
 * spread evenly over the last `logDays` days, each event fanned out to every endpoint of the
 * webhook organisation (consecutive attempts share an event), 3 % of them failed with a 503.
 * Attempt ids are UUIDv7 of their attempt time (domain/ids.ts), as the retention sweep's key
 * range (storage/retention.ts `v7Floor`) expects; delivery ids are made up (their delivery rows
 * are long gone: finished deliveries are deleted, their attempts stay). No envelopes: they are
 * kept only for deliveries with retries left.
 */

const CHUNK = 500_000;

/** A v7 uuid of millisecond `t` (bigint SQL) with row number `n` in its random bits: unique, ascending in (t, n). */
function v7Sql(t: string, n: string): string {
  const th = `lpad(to_hex((${t})::bigint), 12, '0')`;
  const nh = `lpad(to_hex((${n})::bigint), 18, '0')`;
  return `(substr(${th}, 1, 8) || '-' || substr(${th}, 9, 4) || '-7' || substr(${nh}, 1, 3) || '-8' || substr(${nh}, 4, 3) || '-' || substr(${nh}, 7, 12))::uuid`;
}

/**
 * Inserts `count` attempts numbered from `first` for `endpoints` (round-robin), spread over
 * [nowMs − logDays, nowMs), in statements of CHUNK rows; `progress` after each.
 */
export async function loadAttempts(
  client: pg.Client,
  schema: string,
  o: { first: number; count: number; endpoints: string[]; nowMs: number; logDays: number },
  progress: (done: number) => void,
): Promise<void> {
  const spanMs = o.logDays * 86_400_000;
  const from = o.nowMs - spanMs;
  const fanout = o.endpoints.length;
  for (let i = 0; i < o.count; i += CHUNK) {
    const upto = Math.min(o.count, i + CHUNK);
    // i: the attempt's place in time (0 oldest); n: its global number (ids unique across calls).
    await client.query(
      `insert into "${schema}".delivery_attempts
         (attempt_id, delivery_id, event_id, event_type, endpoint_id, attempt, attempted_at, status_code, duration_ms, response_body, error, outcome, trigger)
       select ${v7Sql('t', 'n')}, ${idSql(KIND.delivery, 'n')}, ${idSql(KIND.event, `n / ${fanout}`)}::text, 'IssueCreated',
         ($1::uuid[])[1 + i % ${fanout}], 1, to_timestamp(t / 1000.0),
         case when failed then 503 else 204 end, 15 + ${hashSql('n', 5, 200)},
         case when failed then 'Service Unavailable' end, null, case when failed then 'failed' else 'delivered' end, 'event'
       from (
         select i, i + ${o.first} as n, (${from} + (i * ${spanMs}::bigint) / ${o.count})::bigint as t, ${hashSql('i', 4, 100)} < 3 as failed
         from generate_series(${i}::bigint, ${upto - 1}) as i
       ) g`,
      [o.endpoints],
    );
    progress(upto);
  }
}

export async function loadDeliveryLog(
  client: pg.Client,
  schema: string,
  p: ScalePlan,
  o: { busy: string[]; quiet: string; nowMs: number },
  log: (msg: string) => void,
): Promise<void> {
  let last = 0;
  await loadAttempts(client, schema, { first: 0, count: p.attempts, endpoints: o.busy, nowMs: o.nowMs, logDays: p.logDays }, (done) => {
    if (done - last >= p.attempts / 5 || done === p.attempts) {
      log(`delivery schema: ${done.toLocaleString('en-US')} of ${p.attempts.toLocaleString('en-US')} attempts`);
      last = done;
    }
  });
  await loadAttempts(client, schema, { first: p.attempts, count: p.small.attempts, endpoints: [o.quiet], nowMs: o.nowMs, logDays: p.logDays }, () => undefined);
  log(`delivery schema: ${p.small.attempts} attempts of the small set's endpoint`);
}
