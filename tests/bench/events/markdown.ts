import { fmtMs, fmtRate, fmtRatio, machineCaveat, machineLine, table, targetsSection } from '../lib/report.ts';
import type { CapacityPhase, EventsReport, ThroughputPhase } from './bench.ts';

const n = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');
const f1 = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? v.toFixed(1) : '–');

/** Which stage limited the outbox throughput run, from its own figures. */
function limitingStage(tp: ThroughputPhase, cap: CapacityPhase | undefined, ceiling: EventsReport['ceiling']): string {
  if (!tp.keptUp) {
    return `the relay: it published ${fmtRate(tp.publishedPerS)} while producers committed ${fmtRate(tp.committedPerS)}, so its backlog grew by ${n(tp.relayBacklogSlope)} events/s.`;
  }
  const capText = cap ? ` The relay alone drained a pre-filled outbox at ${fmtRate(cap.rate)} (below), so it had headroom.` : '';
  const own = ceiling.find((c) => c.variant === 'enqueueEvent');
  const free = ceiling.find((c) => c.variant === 'no-notify');
  const ceilText =
    own && free
      ? ` Without relay and consumer the same writers commit ${fmtRate(free.closed.rps)} (no \`pg_notify\`, as enqueueEvent does beside a relay of its process), and ${fmtRate(own.closed.rps)} with one in each transaction (below).`
      : '';
  return `the producers (Postgres transactions from ${tp.closed.latency.count ? `writers whose commits took p50 ${fmtMs(tp.closed.latency.p50)}` : 'the writers'}), not the relay: the relay kept up with every commit (backlog ${n(tp.relayBacklogStart)} → ${n(tp.relayBacklogEnd)}).${capText}${ceilText}`;
}

export function eventsMarkdown(r: EventsReport, command: string, note?: string): string {
  const s = r.settings;
  const m = r.machine;
  const out: string[] = [];
  out.push('## Events: domain events on JetStream through the transactional outbox');
  out.push('');
  out.push(`Command: \`${command}\` — run ${m.date}.`);
  out.push('');
  out.push(`Machine: ${machineLine(m, [r.postgres, r.nats])}. Load average (1/5/15 min) at start ${m.loadAverage.join(' / ')}, at end ${r.loadAtEnd.join(' / ')}.`);
  out.push(...machineCaveat(m, [...r.latency.map((l) => l.cpu), ...r.throughput.map((t) => t.cpu), ...r.capacity.map((c) => c.cpu)], note));
  out.push('');
  out.push('Settings:');
  out.push('- Runs first in every full `npm run bench`; alone with `npm run bench -w tests -- --only=events` (also rewrites this section; `--quick` and `--no-write` leave it alone). The harness is `tests/bench/events`; it stops by itself in about 3–4 minutes and removes its schemas and stream.');
  out.push(
    `- One process (this harness) runs the producers, the real \`startOutboxRelay\` (batch ${s.batchSize}, defaults otherwise; given the producer's pool, so it wakes when a writer's connection comes back to the pool after a commit that enqueued an event, and writers send no NOTIFY) on the producer's pool (max ${s.producerPoolMax}: room for every writer and the relay, as two replicas of a service with the default \`DB_POOL_MAX\` of 10 would have) in an isolated schema holding \`outbox\` and a small \`bench_state\` table, and durable consumers (the real \`startConsumer\`, concurrency ${s.consumerConcurrency}, batches of up to ${s.consumerBatchSize}, inbox in a second isolated schema, pool max ${s.consumerPoolMax}); producer and consumer sides have their own NATS connection. One stream (file storage, 1 replica, 2 min duplicate window); each phase has its own subject and durable. The event is a protobuf \`IssueStatusChanged\` (${r.eventBytes} bytes) with \`Nats-Msg-Id\` and the type/org headers. Postgres and NATS on 127.0.0.1.`,
  );
  out.push(
    `- A producer transaction inserts one \`bench_state\` row and calls \`enqueueEvent\` (outbox row), then commits. The handler only notes its start time; its transaction (inbox rows of the batch) commits and the messages are acked as in a service.`,
  );
  out.push(
    `- Latency: open loop at ${s.rate} events/s (\`tests/bench/lib/open-loop.ts\`), ${s.warmupS} s warm-up then ${s.durationS} s. **Outbox**: from the producer's commit (its \`transaction().execute()\` resolved) to the consumer's handler start. **Bare**: \`js.publish\` (with \`msgID\`) at the same rate on the producer connection, from the publish call to the handler start of the same kind of consumer. Same process, same clock (\`performance.now()\`).`,
  );
  out.push(
    `- Throughput: closed loop, ${s.tpWarmupS} s warm-up then ${s.tpDurationS} s. **Outbox**: ${s.writers} concurrent writers (two services' worth: with 8, each waiting for its own WAL flush, the writers and not the outbox set the pace, with a quarter of the CPU idle) committing as fast as they can while the relay publishes and the consumer consumes; counted in the window: commits, relay PubAcks, handler starts; backlogs sampled every 250 ms. The relay *kept up* when its backlog (committed − published) grew by less than ${s.keptUpSlope * 100}% of the commit rate and ended under one second of commits plus one batch per writer; the sustained rate is then the commit rate, otherwise the relay's publish rate. **Bare**: ${s.barePublishWindow} publishes in flight (each awaited, a new one sent as one is acknowledged).`,
  );
  out.push(
    `- Relay capacity: ${n(s.capacityRows)} rows put into the outbox with the relay stopped, then the relay started alone; rate = rows ÷ (first publish call → last PubAck). Then ${n(s.serialRows)} rows with **serial acks emulated** (the JetStream client handed to the relay sends each publish only after the previous PubAck, which is what the relay did before it published batches with concurrent acks). Per claim transaction, the statement times come from a kysely query log on the relay's own kysely instance (same pool), and the publish times from the client handed to it: neither changes what the relay does.`,
  );
  out.push('- Between phases the harness waits (up to 30 s) until the processes of the run use less than 0.15 cores.');
  out.push('');
  out.push(...targetsSection(r.checks, 'Outbox ÷ bare', (c) => fmtRatio(c.ratio)));
  out.push('');
  out.push(`### Latency at ${s.rate} events/s (open loop)`);
  out.push('');
  const lrows: string[][] = [];
  for (const l of r.latency) {
    const label = l.path === 'outbox' ? 'outbox: commit → handler' : 'bare: publish call → handler';
    lrows.push([label, `${l.received} of ${l.measured}`, fmtMs(l.e2e.p50), fmtMs(l.e2e.p90), fmtMs(l.e2e.p99), fmtMs(l.e2e.max), fmtMs(l.sendToHandler.p99), fmtMs(l.open.latency.p99), fmtMs(l.open.sendLag.p99), l.open.problems.length ? l.open.problems.join('; ') : 'none']);
  }
  out.push(table(['Path', 'Received', 'p50', 'p90', 'p99', 'max', 'Due → handler p99', 'Due → commit / PubAck p99', 'Generator send lag p99', 'Errors'], lrows));
  out.push('');
  const lo = r.latency.find((l) => l.path === 'outbox');
  if (lo?.pickup && lo.publishToHandler) {
    out.push('Where the outbox latency goes (p50 / p99):');
    out.push('');
    out.push(
      table(
        ['Step', 'p50', 'p99', 'max'],
        [
          ['commit → relay publish call (wake-up, claim)', fmtMs(lo.pickup.p50), fmtMs(lo.pickup.p99), fmtMs(lo.pickup.max)],
          ['relay publish call → PubAck', fmtMs(lo.pubAck.p50), fmtMs(lo.pubAck.p99), fmtMs(lo.pubAck.max)],
          ['relay publish call → handler start', fmtMs(lo.publishToHandler.p50), fmtMs(lo.publishToHandler.p99), fmtMs(lo.publishToHandler.max)],
        ],
      ),
    );
    out.push('');
  }
  out.push('"Due → handler" counts from the open loop\'s scheduled time, so it includes the producer\'s own transaction (outbox) or nothing more than send lag (bare). "Generator send lag" above a millisecond or two means the harness, not the path, was short of CPU.');
  out.push('');
  out.push('### Highest sustained rate (closed loop)');
  out.push('');
  const trows: string[][] = [];
  for (const t of r.throughput) {
    trows.push([
      t.path === 'outbox'
        ? `outbox, ${s.writers} writers${t.withConsumer ? '' : ', **no consumer** (diagnostic)'}${t.former ? ', **as before** (NOTIFY in the writer transaction, one consumer transaction per event; diagnostic)' : ''}`
        : `bare publish, ${s.barePublishWindow} in flight`,
      t.path === 'outbox' ? fmtRate(t.committedPerS) : '–',
      fmtRate(t.publishedPerS),
      t.withConsumer ? fmtRate(t.consumedPerS) : '–',
      t.path === 'outbox' ? `${n(t.relayBacklogStart)} → ${n(t.relayBacklogEnd)} (${n(t.relayBacklogSlope)}/s)` : '–',
      t.path === 'outbox' ? (Number.isFinite(t.relayDrainS) ? `${t.relayDrainS.toFixed(2)} s` : 'not within the timeout') : '–',
      t.withConsumer ? `${n(t.consumerBacklogEnd)} (${n(t.consumerBacklogSlope)}/s)` : '–',
      t.path === 'outbox' ? `${fmtMs(t.closed.latency.p50)} / ${fmtMs(t.closed.latency.p99)}` : `${fmtMs(t.closed.latency.p50)} / ${fmtMs(t.closed.latency.p99)}`,
      t.closed.problems.length ? t.closed.problems.join('; ') : 'none',
    ]);
  }
  out.push(table(['Path', 'Committed', 'Published (PubAcks)', 'Consumed', 'Relay backlog start → end (slope)', 'Relay drain after', 'Consumer backlog at end (slope)', 'Commit / publish p50 / p99', 'Errors'], trows));
  out.push('');
  const to = r.throughput.find((t) => t.path === 'outbox' && t.withConsumer && !t.former);
  const alone = r.throughput.find((t) => t.path === 'outbox' && !t.withConsumer);
  const former = r.throughput.find((t) => t.former);
  const capC = r.capacity.find((c) => c.mode === 'concurrent');
  if (to) {
    out.push(`Limiting stage of the outbox run: ${limitingStage(to, capC, r.ceiling)}`);
    out.push('');
    if (alone) {
      out.push(
        `Without the consumer (its inbox transactions, one commit per batch, share this machine's Postgres and this process), the same ${s.writers} writers committed ${fmtRate(alone.committedPerS)} and the relay ${alone.keptUp ? 'kept up' : '**fell behind**'} (published ${fmtRate(alone.publishedPerS)}, backlog ${n(alone.relayBacklogStart)} → ${n(alone.relayBacklogEnd)}).`,
      );
      out.push('');
    }
    if (to.withConsumer && Number.isFinite(to.consumerBatchMean)) {
      out.push(
        `The consumer committed ${fmtRate(to.consumerTxPerS)} transactions of ${f1(to.consumerBatchMean)} events on average (batches of up to ${s.consumerBatchSize}, concurrency ${s.consumerConcurrency})${former && Number.isFinite(former.consumerBatchMean) ? `; one per event before (${fmtRate(former.consumerTxPerS)})` : ''}.`,
      );
      out.push('');
    }
    if (former) {
      out.push(
        `As the bus worked before (each writer's transaction sending a NOTIFY, one consumer transaction per event), in this same run: ${fmtRate(former.committedPerS)} committed, ${fmtRate(former.publishedPerS)} published, ${fmtRate(former.consumedPerS)} consumed (relay ${former.keptUp ? 'kept up' : '**fell behind**'}); sustained ${fmtRate(former.sustained)}, against ${fmtRate(to.sustained)} now (${fmtRatio(to.sustained / former.sustained)}).`,
      );
      out.push('');
    }
    if (to.consumedPerS < to.publishedPerS * 0.95) {
      out.push(`The consumer (batches of up to ${s.consumerBatchSize} events per inbox transaction, concurrency ${s.consumerConcurrency}) handled ${fmtRate(to.consumedPerS)}, less than was published: its backlog grows; consumers scale by replicas sharing the durable, which this single-process run does not do.`);
      out.push('');
    }
  }
  if (r.ceiling.length) {
    out.push(`### Producer commit ceiling (${s.writers} writers, no relay, no consumer)`);
    out.push('');
    const label: Record<EventsReport['ceiling'][number]['variant'], string> = {
      enqueueEvent: 'state row + `enqueueEvent` with no relay in the process (outbox row + `pg_notify` in the transaction: its fallback, and what every writer did before)',
      'no-notify': 'state row + the same outbox insert, no `pg_notify` (what `enqueueEvent` does beside a relay of its process, as above)',
      'notify-after-commit': 'state row + outbox insert, commit, then `select pg_notify(…)` on its own (autocommit)',
    };
    const base = r.ceiling.find((c) => c.variant === 'enqueueEvent');
    out.push(
      table(
        ['Producer transaction', 'Commits', '÷ enqueueEvent', 'Commit p50', 'Commit p99', 'postgres cores', 'Errors'],
        r.ceiling.map((c) => [
          label[c.variant],
          fmtRate(c.closed.rps),
          base ? fmtRatio(c.closed.rps / base.closed.rps) : '–',
          fmtMs(c.closed.latency.p50),
          fmtMs(c.closed.latency.p99),
          c.cpu ? ((c.cpu.seconds.postgres ?? 0) / c.cpu.wallS).toFixed(2) : '–',
          c.closed.problems.length ? c.closed.problems.join('; ') : 'none',
        ]),
      ),
    );
    out.push('');
    out.push(
      'A transaction that has called `NOTIFY` takes a cluster-wide lock in `PreCommit_Notify` (Postgres `async.c`, to keep the notification queue in commit order) and holds it until its commit record is flushed, so notifying transactions commit one at a time, one WAL flush each, instead of sharing flushes (group commit). The `notify-after-commit` row sends the same wake-up from a transaction that writes nothing, which holds the lock without a flush.',
    );
    out.push('');
  }
  out.push('### Relay capacity and the cost of serial acks');
  out.push('');
  const crows: string[][] = [];
  for (const c of r.capacity) {
    const y = c.cycles;
    crows.push([
      c.mode === 'concurrent' ? 'batch published, acks awaited together (current relay)' : 'one publish awaited at a time (emulated, former relay)',
      `${n(c.published)} of ${n(c.rows)}${c.finished ? '' : ' (cut short)'}`,
      fmtRate(c.rate),
      y ? `${f1(y.rowsPerCycle)}` : '–',
      y ? f1(y.totalMs) : '–',
      y ? f1(y.claimMs) : '–',
      y ? `${f1(y.publishMs)} (p99 ${f1(y.publishP99Ms)})` : '–',
      y ? `${f1(y.beginMs)} / ${f1(y.commitMs)}` : '–',
      y ? f1(y.gapMs) : '–',
    ]);
  }
  const tc = to?.cycles;
  if (tc) {
    crows.push([
      `during the outbox throughput run (${s.writers} writers competing)`,
      `${n(to!.publishedPerS * to!.windowS)} in the window`,
      fmtRate(to!.publishedPerS),
      f1(tc.rowsPerCycle),
      f1(tc.totalMs),
      f1(tc.claimMs),
      `${f1(tc.publishMs)} (p99 ${f1(tc.publishP99Ms)})`,
      `${f1(tc.beginMs)} / ${f1(tc.commitMs)}`,
      f1(tc.gapMs),
    ]);
  }
  out.push(table(['Relay', 'Published', 'Rate', 'Rows per claim', 'Claim tx ms', 'Claim + mark ms (one statement)', 'First publish → last PubAck ms', 'Begin / commit ms', 'Gap to next claim ms'], crows));
  out.push('');
  const ser = r.capacity.find((c) => c.mode === 'serial');
  if (capC && ser) {
    out.push(
      `Means over full claims (${s.batchSize} rows) where there were any. Concurrent acks publish ${fmtRatio(capC.rate / ser.rate)} as fast as serial ones here; with serial acks, publishing is ${f1(ser.cycles ? (ser.cycles.publishMs / ser.cycles.totalMs) * 100 : NaN)}% of each claim transaction (${f1(ser.cycles ? ser.cycles.publishMs / Math.max(1, ser.cycles.rowsPerCycle) : NaN)} ms per row), with concurrent acks ${f1(capC.cycles ? (capC.cycles.publishMs / capC.cycles.totalMs) * 100 : NaN)}%.`,
    );
    out.push('');
  }
  out.push('### CPU');
  out.push('');
  const groups = ['bench process', 'nats', 'postgres', 'other', 'stolen'];
  const label = (g: string) => (g === 'nats' ? 'nats-server' : g);
  const rowsCpu: string[][] = [];
  const add = (label: string, u: EventsReport['latency'][number]['cpu']) => {
    if (!u) return;
    rowsCpu.push([label, `${u.coresBusy.toFixed(2)} of ${m.nproc}`, ...groups.map((g) => ((u.seconds[g] ?? 0) / u.wallS).toFixed(2))]);
  };
  for (const l of r.latency) add(`latency, ${l.path}`, l.cpu);
  for (const t of r.throughput) add(`throughput, ${t.path}${t.withConsumer ? '' : ', no consumer'}${t.former ? ', as before' : ''}`, t.cpu);
  for (const c of r.ceiling) add(`commit ceiling, ${c.variant}`, c.cpu);
  for (const c of r.capacity) add(`relay capacity, ${c.mode}`, c.cpu);
  out.push(table(['Window', 'Cores busy', ...groups.map((g) => `${label(g)} (cores)`)], rowsCpu));
  out.push('');
  out.push('Cores used on average in each measured window (user + system, from /proc). "bench process" is producers, relay and consumers together; "postgres" is the backends of this process plus Postgres\'s background processes; "other" is the rest of the machine (other people\'s work); "stolen" is time the hypervisor ran something else while this machine\'s CPUs wanted to run (steal in /proc/stat).');
  out.push('');
  return out.join('\n');
}
