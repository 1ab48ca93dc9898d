import type { JetStreamClient } from '@nats-io/jetstream';
import { headers, type MsgHdrs } from '@nats-io/nats-core';
import { sql, type Kysely } from 'kysely';
import type { Counter } from 'prom-client';
import type { Logger } from '@preflight/log';
import { EVENT_TYPE_HEADER, ORG_ID_HEADER } from '@preflight/events';
import { errorMessage } from '../metrics.ts';
import { publishTrace, TRACEPARENT_HEADER } from '../tracing.ts';

interface OutboxRow {
  id: string;
  seq: number | string;
  subject: string;
  type: string;
  payload: Buffer;
  org_id: string | null;
  traceparent: string | null;
}

export interface PublishBatchDeps {
  db: Kysely<any>;
  js: JetStreamClient;
  batchSize: number;
  publishTimeoutMs: number;
  log: Logger;
  published: Counter;
  failures: Counter;
}

/**
 * One claim of the relay: up to `batchSize` unpublished rows claimed and marked in a transaction
 * that stays open while they are published (with concurrent acks, in claim order); a failed
 * publish puts that row and the ones after it back. Answers how many rows were claimed and
 * whether a publish failed.
 */
export async function publishBatch(d: PublishBatchDeps): Promise<{ claimed: number; failed: boolean }> {
  return d.db.transaction().execute(async (trx) => {
    // Claimed and marked at once: the row locks taken here hold until commit, and a rollback
    // undoes the mark, so the mark can come before the publish (one statement, one write per
    // row, instead of a select that locks and an update after).
    // The same statement turns synchronous_commit off for this transaction (`set_config(…,
    // true)` is `set local`; evaluated once, before the scan): marking rows published need
    // not wait for a disk flush, since a mark lost in a crash only means the rows are
    // published again with the same Nats-Msg-Id, which JetStream drops (and the consumers'
    // inbox catches past the duplicate window). A statement of its own cost a round trip per claim.
    const claimed = await sql<OutboxRow>`
      update outbox set published_at = now(), attempts = attempts + 1, last_error = null
      where (select set_config('synchronous_commit', 'off', true)) = 'off'
        and id in (
          select id from outbox
          where published_at is null
          order by seq
          limit ${d.batchSize}
          for update skip locked)
      returning id, seq, subject, type, payload, org_id, traceparent`.execute(trx);
    const rows = claimed.rows.sort((a, b) => Number(a.seq) - Number(b.seq));
    // Publish the whole batch before awaiting any ack: messages go out on one connection in
    // claim order, so the stream keeps that order, and a batch costs one round trip instead of
    // one per event. Rows up to the first failure stay marked; the failed row and those after
    // it go back to unpublished and go again (a later one that did land is dropped as a
    // duplicate).
    const acks = await Promise.allSettled(
      rows.map((row) => {
        const h: MsgHdrs = headers();
        h.set(EVENT_TYPE_HEADER, row.type);
        if (row.org_id) h.set(ORG_ID_HEADER, row.org_id);
        const traced = publishTrace(row.subject, row.id, row.traceparent);
        if (traced.traceparent) h.set(TRACEPARENT_HEADER, traced.traceparent);
        const published = d.js.publish(row.subject, row.payload, { msgID: row.id, headers: h, timeout: d.publishTimeoutMs });
        published.then(() => traced.end(), traced.end);
        return published;
      }),
    );
    let done = 0;
    let failure: { id: string; error: string } | undefined;
    for (const [i, ack] of acks.entries()) {
      const row = rows[i]!;
      if (ack.status === 'rejected') {
        failure = { id: row.id, error: errorMessage(ack.reason) };
        break;
      }
      if (ack.value.duplicate) d.log.info({ eventId: row.id }, 'outbox row was already in the stream (duplicate dropped)');
      done += 1;
    }
    if (failure) {
      // Only the failed row counts an attempt; the ones after it were not really tried.
      const undo = rows.slice(done).map((r) => r.id);
      await sql`
        update outbox set published_at = null,
          attempts = case when id = ${failure.id} then attempts else attempts - 1 end,
          last_error = case when id = ${failure.id} then ${failure.error} else null end
        where id = any(${undo}::uuid[])`.execute(trx);
      d.log.warn({ eventId: failure.id, err: failure.error }, 'outbox publish failed');
      d.failures.inc();
    }
    d.published.inc(done);
    return { claimed: rows.length, failed: failure !== undefined };
  });
}
