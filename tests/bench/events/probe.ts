import type { JetStreamClient } from '@nats-io/jetstream';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import type pg from 'pg';

/**
 * Watches the real outbox relay from outside, without changing it: the relay gets
 *
 * - a JetStream client whose `publish` is timed (call → PubAck), per event id when asked
 *   (latency breakdown) and per batch (the calls the relay makes in one synchronous
 *   `rows.map`, i.e. one claimed batch); optionally `serial`, where each publish is only sent
 *   once the previous one was acknowledged — exactly what the relay did before commit c0c74be
 *   (one awaited publish per row), to measure what concurrent acks are worth;
 * - a kysely instance over the producer's own pool whose query log times the claim
 *   transaction's statements (begin, the claim-and-mark statement, the update that puts rows back after a failed publish, commit).
 */
export interface RelayCycle {
  /** performance.now() when the claim transaction's `begin` was sent. */
  startAt: number;
  /** Rows claimed = publish calls made inside the transaction. */
  rows: number;
  beginMs: number;
  claimMs: number;
  /** First publish call → last PubAck of the batch. */
  publishMs: number;
  markMs: number;
  commitMs: number;
  /** `begin` sent → `commit` answered. */
  totalMs: number;
}

export interface RelayProbe {
  js: JetStreamClient;
  db: Kysely<any>;
  /** PubAcks received (successful relay publishes), since the probe was made. */
  readonly acked: number;
  /** Publish calls made. */
  readonly calls: number;
  readonly firstCallAt: number;
  readonly lastAckAt: number;
  /** Completed claim transactions, in order. */
  readonly cycles: RelayCycle[];
  /** Per event id when tracking: publish call and PubAck times. */
  readonly publishedAt: Map<string, number>;
  readonly ackedAt: Map<string, number>;
  trackIds: boolean;
  /** Emulate the serial relay (each publish waits for the previous PubAck). */
  serial: boolean;
}

interface OpenCycle {
  startAt: number;
  beginMs: number;
  claimMs: number;
  rows: number;
  publishFirstAt: number;
  lastAckAt: number;
  markMs: number;
  pending: number;
}

/** `pool` is the producer's pool (the relay runs inside the producing service). The kysely instance must not be destroyed (it would end the pool). */
export function relayProbe(js: JetStreamClient, pool: pg.Pool): RelayProbe {
  let acked = 0;
  let calls = 0;
  let firstCallAt = NaN;
  let lastAckAt = NaN;
  const cycles: RelayCycle[] = [];
  const publishedAt = new Map<string, number>();
  const ackedAt = new Map<string, number>();
  let open: OpenCycle | undefined;
  let serialChain: Promise<unknown> = Promise.resolve();

  const probe: RelayProbe = {
    js: undefined as unknown as JetStreamClient,
    db: undefined as unknown as Kysely<any>,
    get acked() {
      return acked;
    },
    get calls() {
      return calls;
    },
    get firstCallAt() {
      return firstCallAt;
    },
    get lastAckAt() {
      return lastAckAt;
    },
    cycles,
    publishedAt,
    ackedAt,
    trackIds: false,
    serial: false,
  };

  const publish: JetStreamClient['publish'] = (subject, payload, options) => {
    const t = performance.now();
    calls += 1;
    if (Number.isNaN(firstCallAt)) firstCallAt = t;
    const id = options?.msgID;
    if (probe.trackIds && id) publishedAt.set(id, t);
    const cycle = open;
    if (cycle) {
      if (Number.isNaN(cycle.publishFirstAt)) cycle.publishFirstAt = t;
      cycle.rows += 1;
      cycle.pending += 1;
    }
    const send = () => js.publish(subject, payload, options);
    const p = probe.serial ? (serialChain = serialChain.catch(() => undefined).then(send)) : send();
    const settled = () => {
      const now = performance.now();
      if (cycle) {
        cycle.pending -= 1;
        cycle.lastAckAt = now;
      }
      return now;
    };
    return (p as ReturnType<JetStreamClient['publish']>).then(
      (ack) => {
        const now = settled();
        acked += 1;
        lastAckAt = now;
        if (probe.trackIds && id) ackedAt.set(id, now);
        return ack;
      },
      (err: unknown) => {
        settled();
        throw err;
      },
    );
  };
  probe.js = new Proxy(js, {
    get(target, prop) {
      if (prop === 'publish') return publish;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });

  // The relay's statements, recognised by their text; kysely logs when a statement has answered.
  const onLog = (e: LogEvent) => {
    if (e.level !== 'query') return;
    const text = e.query.sql.trim().toLowerCase();
    const ms = e.queryDurationMillis;
    const end = performance.now();
    if (text === 'begin') {
      open = { startAt: end - ms, beginMs: ms, claimMs: NaN, rows: 0, publishFirstAt: NaN, lastAckAt: NaN, markMs: 0, pending: 0 };
    } else if (text.includes('for update skip locked')) {
      if (!open) open = { startAt: end - ms, beginMs: 0, claimMs: NaN, rows: 0, publishFirstAt: NaN, lastAckAt: NaN, markMs: 0, pending: 0 };
      open.claimMs = ms;
    } else if (text.startsWith('update outbox') && open) {
      open.markMs += ms;
    } else if ((text === 'commit' || text === 'rollback') && open) {
      const c = open;
      open = undefined;
      const published = Number.isNaN(c.publishFirstAt) ? 0 : c.lastAckAt - c.publishFirstAt;
      cycles.push({
        startAt: c.startAt,
        rows: c.rows,
        beginMs: c.beginMs,
        claimMs: c.claimMs,
        publishMs: published,
        markMs: c.markMs,
        commitMs: ms,
        totalMs: end - c.startAt,
      });
    }
  };
  probe.db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log: onLog });
  return probe;
}
