import { fmtMs, fmtRate, table } from '../lib/report.ts';
import { REPORTED_PAUSE_MS } from '../lib/machine-pauses.ts';
import { cpuTable, systemPreamble, throughputTable } from '../lib/system-markdown.ts';
import { TIMELINE_BUCKET_S, type DeliveryReport } from './bench.ts';

const CPU_GROUPS = ['delivery', 'webhook', 'postgres', 'nats', 'harness', 'other services', 'other', 'stolen'];

/** CPU µs per delivery (or bare request) of each group over a throughput window. */
const perDelivery = (t: DeliveryReport['throughput'][number], g: string) => (t.cpu ? ((t.cpu.seconds[g] ?? 0) / (t.deliveredPerS * t.windowS)) * 1e6 : NaN);
const BUSY_GROUPS = CPU_GROUPS.filter((g) => g !== 'stolen');

/**
 * The throughput windows' CPU per delivery, and what the ratio target leaves: at 0.4× the bare
 * loop, the whole machine's cores divided by that rate is all the CPU a delivery may cost,
 * every process of the system and the receivers together.
 */
function cpuBudget(r: DeliveryReport): string[] {
  const out: string[] = [];
  out.push('### CPU per delivery (µs, throughput windows: busy CPU of each group ÷ deliveries, or bare requests, in the window)');
  out.push('');
  out.push(
    table(
      ['window', ...BUSY_GROUPS, 'all'],
      r.throughput.map((t) => {
        const parts = BUSY_GROUPS.map((g) => perDelivery(t, g));
        return [t.label, ...parts.map((v) => v.toFixed(0)), parts.reduce((a, b) => a + b, 0).toFixed(0)];
      }),
    ),
  );
  const sustained = r.throughput.find((t) => t.name === 'sustained');
  const bare = r.throughput.find((t) => t.name === 'bare');
  if (sustained && bare) {
    const goal = 0.4 * bare.deliveredPerS;
    const budget = (r.machine.nproc / goal) * 1e6;
    const spent = BUSY_GROUPS.reduce((a, g) => a + perDelivery(sustained, g), 0);
    const outside = spent - perDelivery(sustained, 'delivery');
    out.push('');
    out.push(
      `At 0.4× the bare loop (${fmtRate(goal)}) this machine's ${r.machine.nproc} cores allow at most ${budget.toFixed(0)} µs of CPU per delivery, ` +
        `for every process together; the sustained window spent ${spent.toFixed(0)} µs, ${outside.toFixed(0)} µs of it outside the delivery process ` +
        `(receivers and publisher, Postgres, NATS, the webhook service, the other services consuming the same events, the rest of the machine).`,
    );
  }
  return out;
}

/** Each service's largest RSS per phase (its largest process: for delivery, the larger replica). */
function memoryTable(r: DeliveryReport): string[] {
  const phases = [...r.latency, ...r.throughput].filter((p) => p.rssMb);
  const services = [...new Set(phases.flatMap((p) => Object.keys(p.rssMb!)))];
  return [
    '### Memory: largest RSS per service, by phase (MB; sampled every 250 ms, the largest process of each service)',
    '',
    table(['phase', ...services], phases.map((p) => [p.label, ...services.map((sv) => (p.rssMb![sv] ?? NaN).toFixed(0))])),
  ];
}

export function deliveryMarkdown(r: DeliveryReport, command: string, note: string | undefined, findings: string | undefined): string {
  const s = r.settings;
  const out: string[] = [];
  out.push('## Delivery: domain event → webhook receiver');
  out.push('');
  out.push(
    `\`${command}\` (tests/bench/delivery), ${r.machine.date}. IssueCreated domain events are published straight onto the system's stream ` +
      `(as the outbox relay does: \`Nats-Msg-Id\`, event type and \`Preflight-Org-Id\` headers) for one organisation with ${s.endpoints} webhooks ` +
      'on loopback receivers (a worker thread of the harness; each checks `X-Service-Signature` and answers 204). Every service runs as its own ' +
      `process with its defaults, from the bundle its image runs (\`services/<name>/dist/main.js\`, \`NODE_ENV=production\`; tests/support/system.ts), ` +
      `the delivery service as ${s.deliveryReplicas} replica${s.deliveryReplicas === 1 ? '' : 's'} (the chart's \`replicaCount\` is 2) sharing its schema and consumer, each with its own in-flight bounds. ` +
      'Latency = arrival at the receiver − the moment the event was built for publishing ' +
      '(one monotonic clock), duplicates dropped, warm-up excluded. Run 1 follows an unmeasured run of the same load, so that it, like the ' +
      'later runs, measures processes that have been working (just started, they ran at about half speed for several seconds and the ' +
      'backlog of those seconds filled the window). The control run and the run with a hanging endpoint each start right ' +
      "after a `VACUUM (ANALYZE)` of every service's tables (the phases before leave tens of thousands of dead row versions, which autovacuum " +
      'would otherwise clean up inside whichever window it fell, and tables grown since the services prepared their statements, which ' +
      'its analyses would have had them plan again); these two last ' + `${s.compareDurationS} s each (run 1: ${s.durationS} s), and the hanging run is compared with the control run, like against like.`,
  );
  out.push('');
  out.push(...systemPreamble(r, note));
  out.push('');
  out.push(`### Event → receiver latency (open loop, ${s.rate} events/s × ${s.endpoints} endpoints = ${(s.rate * s.endpoints).toLocaleString('en-US')} deliveries/s, ${s.warmupS} s warm-up + ${s.durationS} s; the control and hanging runs ${s.compareDurationS} s)`);
  out.push('');
  out.push(
    table(
      ['run', 'p50', 'p90', 'p99', 'max', 'worst receiver p99', 'arrived / expected', 'dup.', 'publish → PubAck p99', 'publisher lag p99', `machine pauses ≥ ${REPORTED_PAUSE_MS} ms (longest)`],
      r.latency.map((p) => [
        p.label,
        fmtMs(p.latency.p50),
        fmtMs(p.latency.p90),
        fmtMs(p.latency.p99),
        fmtMs(p.latency.max),
        fmtMs(p.worstReceiverP99),
        `${p.arrived.toLocaleString('en-US')} / ${p.expected.toLocaleString('en-US')}`,
        String(p.duplicates),
        fmtMs(p.open.latency.p99),
        fmtMs(p.open.sendLag.p99),
        p.pauses.count > 0 ? `${p.pauses.count} (${fmtMs(p.pauses.worstMs)})` : '0',
      ]),
    ),
  );
  out.push('');
  out.push(`p99 (and max) of the events published in each ${TIMELINE_BUCKET_S} s of the measured window, in order, to show when in a run its slowest deliveries fell:`);
  out.push('');
  for (const p of r.latency) out.push(`- ${p.label}: ${p.timeline.map((t) => `${fmtMs(t.p99)} (${fmtMs(t.max)})`).join(' · ')}`);
  out.push('');
  out.push(
    `Machine pauses: gaps of at least ${REPORTED_PAUSE_MS} ms between the wake-ups of an idle process on a 1 ms timer during the measured window (tests/bench/lib/machine-pauses.ts). ` +
      'No core was free for it meanwhile, and every process of the system stood still as long: a window with more of them has a longer tail for reasons outside the system.',
  );
  out.push('');
  out.push('### Throughput');
  out.push('');
  out.push(
    throughputTable(r.throughput, 'delivered/s at the receivers', (t) => t.deliveredPerS, (t) => ({
      offered: `offered ${fmtRate(t.offeredPerS ?? NaN)}`,
      more: `at the end ${t.pendingRowsEnd} pending rows, consumer lag ${t.consumerLagEnd}; mean attempt (the service's own measure) ${(t.attemptMeanMs ?? NaN).toFixed(2)} ms`,
      errorsOf: 'publish',
    })),
  );
  out.push('');
  out.push(
    `Each delivery replica holds at most \`DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT\` × endpoints attempts in flight (capped by \`DELIVERY_WORKERS\`); the bare loops use as many as all ${s.deliveryReplicas} replica${s.deliveryReplicas === 1 ? '' : 's'} together. ` +
      'The sustained run publishes whenever fewer than the feed window of deliveries are outstanding (published × endpoints − arrived), so the system is never idle for want of work; the measured seconds start after the warm-up once the window is 90 % full, so the feed is paced by what arrives (for a system that keeps up with everything the feed sends: 30 s later or more, once the outstanding count grew by less than 2.5 % of the window over 10 s; 120 s at the latest); ' +
      '"bounded" = the outstanding count grew by less than 10 % of the window over the measured seconds and everything arrived after publishing stopped.',
  );
  out.push('');
  out.push('### CPU (cores busy on average during each measured window)');
  out.push('');
  out.push(cpuTable([...r.latency, ...r.throughput], CPU_GROUPS));
  out.push('');
  out.push('`postgres` = the backends of the metered processes plus Postgres\'s background processes; `nats` = the NATS server; `harness` = publisher, receivers (worker thread) and bare loops; `other` = everything else on the machine; `stolen` = time the hypervisor ran something else while this machine\'s CPUs wanted to run (steal in /proc/stat), during which every process here stood still.');
  out.push('');
  out.push(...cpuBudget(r));
  out.push('');
  out.push(...memoryTable(r));
  if (findings) {
    out.push('');
    out.push(findings.trim());
  }
  return out.join('\n');
}
