import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Kysely, Transaction } from 'kysely';
import type { Registry } from 'prom-client';
import type { Logger } from '@preflight/log';

/** One event as a handler sees it. */
export interface ConsumedEvent {
  /** `Nats-Msg-Id` (the outbox id), or `<stream>:<seq>` for a message published without one. */
  id: string;
  subject: string;
  /** The `Preflight-Event-Type` header: the protobuf type name. */
  type: string | undefined;
  orgId: string | undefined;
  payload: Uint8Array;
  /** 1 on the first delivery. */
  deliveryCount: number;
  redelivered: boolean;
  streamSequence: number;
  /**
   * The `traceparent` header: the trace context of the relay's publish, child of the request
   * that enqueued the event. Handlers run in the event's trace already; a handler that queues
   * work for later may store this to continue the trace there.
   */
  traceparent?: string | undefined;
}

/**
 * Runs inside a transaction that has already recorded the event in the inbox: everything it
 * writes through `trx` commits with that record, or not at all. Throw to have the event
 * redelivered later.
 *
 * The transaction may hold a batch of events (handled one after the other, in stream order):
 * locks the handler takes are held until the whole batch commits, and its effects for the
 * events before it are visible through `trx`. A throw rolls the whole batch back; each of its
 * events is then handled again in a transaction of its own, so a handler may run twice for an
 * event whose first run was rolled back (as on any redelivery).
 */
export type EventHandler<DB> = (event: ConsumedEvent, trx: Transaction<DB>, tx: TransactionHooks) => Promise<void>;

/**
 * What a handler may want done once its transaction has ended: in memory work that must only
 * follow a commit (handing rows it wrote to an in-process worker), or undoing a reservation
 * when the transaction rolled back. Each callback runs once, synchronously, right after the
 * commit (before the acks) or the rollback; a throw is logged and otherwise ignored. A crash
 * between the commit and the callback runs neither, so what they do must also be recoverable
 * from the database.
 */
export interface TransactionHooks {
  afterCommit(fn: () => void): void;
  afterRollback(fn: () => void): void;
}

/**
 * Like `EventHandler`, but called once per transaction with the events of the batch that were
 * not in the inbox yet, in stream order (never empty): lets a handler share work between the
 * events of a batch (one lock, one write for several events). After a failed batch it is called
 * with one event at a time, each in a transaction of its own, so it may see an event again that
 * it saw in the rolled-back batch.
 */
export type BatchEventHandler<DB> = (events: ConsumedEvent[], trx: Transaction<DB>, tx: TransactionHooks) => Promise<void>;

/** Exactly one of the two. */
export type ConsumerHandlerOptions<DB> = { handler: EventHandler<DB>; batchHandler?: never } | { batchHandler: BatchEventHandler<DB>; handler?: never };

export type ConsumerOptions<DB> = ConsumerCommonOptions<DB> & ConsumerHandlerOptions<DB>;

export interface ConsumerCommonOptions<DB> {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  /** The durable name: replicas sharing it share the work; it labels the metrics and inbox rows. */
  durable: string;
  /** One subject (any server) or several (NATS ≥ 2.10). */
  filterSubjects: string[];
  /** A kysely instance bound to the schema holding `inbox` (search_path). */
  db: Kysely<DB>;
  /** For log lines only; the tables resolve through the db's search_path. */
  schema?: string;
  /** Transactions (batches) running at once in this replica (default 4). */
  concurrency?: number;
  /**
   * Most events handled in one transaction (default 32): the messages already received when a
   * transaction starts, up to this many (see lingerMs). 1 gives one transaction per event.
   */
  batchSize?: number;
  /**
   * While another transaction of this consumer runs, how long a batch that is not full waits
   * for more messages before it starts (default 5 ms). With nothing else running it starts at
   * once, so a lone event is not delayed; 0 never waits.
   */
  lingerMs?: number;
  /**
   * How long a batch waits for more messages even when nothing else runs (default 0). For
   * consumers whose effects may trail their events by a few ms (projections, fan-out): under a
   * steady trickle each event would otherwise pay a whole transaction of its own.
   */
  gatherMs?: number;
  logger: Logger;
  registry?: Registry;
  /** Redelivery after this long without an ack (default 30 s); long handlers are kept alive. */
  ackWaitMs?: number;
  /** Deliveries before an event is given up (terminated and logged); default 20, -1 for never. */
  maxDeliver?: number;
  /** Delay before redelivering a failed event, by delivery count (default 1 s doubling, max 60 s). */
  retryDelayMs?: (deliveryCount: number) => number;
  /** How often consumer_lag is refreshed (default 5 s). */
  lagIntervalMs?: number;
  /**
   * Whether an event can have any effect here. One it declines is acked at once, with no
   * transaction and no inbox row (outcome `skipped`): for consumers that ignore most events
   * (the fan-out, for organisations without endpoints), so those cost no commit. It must not
   * need the transaction, and answering true is always safe; a throw counts as true (the
   * handler then decides). A declined event that comes again is asked again.
   */
  wants?: (event: ConsumedEvent) => boolean | Promise<boolean>;
  /**
   * Sees each event the moment it is received, before its transaction waits for a turn: when
   * every transaction slot waits on a slow commit, events keep being received and shown here.
   * For work that may start before the event's effects are committed (the fan-out starts its
   * attempts here: at least once). An event joins a batch once what this answered has settled
   * (a throw is logged and ignored), so the handler finds what it prepared, by the event
   * object; batches then take events in the order they became ready, which is stream order
   * only as far as `onReceived` keeps it. An event waiting here holds no transaction slot.
   */
  onReceived?: (event: ConsumedEvent) => void | Promise<void>;
  /** Called once per event that `onReceived` saw, after it was acked, nak'ed or terminated: whatever the handler did not take is to be let go. */
  onSettled?: (event: ConsumedEvent) => void;
}

export interface RunningConsumer {
  /** Stops pulling, waits for the handlers in flight to finish (and ack), stops the lag poll. */
  stop(): Promise<void>;
}
