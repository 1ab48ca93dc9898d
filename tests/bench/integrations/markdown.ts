import { coresTakenFromRun } from '../lib/cpu.ts';
import type { PgActivity } from '../lib/pg-activity.ts';
import { REPORTED_PAUSE_MS } from '../lib/machine-pauses.ts';
import { fmtMs, fmtRate, table } from '../lib/report.ts';
import { cpuTable, systemPreamble, throughputTable } from '../lib/system-markdown.ts';
import { CALLS_PER_ISSUE, fmtClaims, KINDS, TIMELINE_BUCKET_S, type IntegrationMetrics, type IntegrationsReport, type LatencyPhase, type ThroughputPhase } from './bench.ts';

/** A latency, or that (some of) its calls never arrived: a summary with missing calls counts them as infinitely late. */
const fmtLat = (v: number) => (v === Infinity ? 'not arrived' : fmtMs(v));
const fmtAction = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([a, v]) => `${a} ${fmtMs(v)}`)
    .join(', ');

/** CPU µs per provider call of each group over a throughput window. */
const perCall = (t: ThroughputPhase, g: string) => (t.cpu ? ((t.cpu.seconds[g] ?? 0) / (t.callsPerS * t.windowS)) * 1e6 : NaN);

function metricsCell(m: IntegrationMetrics | undefined): string {
  if (!m) return '–';
  return `job lag ${fmtAction(m.lagMs)}; job run ${fmtAction(m.runMs)}; event-loop delay mean ${fmtMs(m.loopLagMeanMs)}, p99 ${fmtMs(m.loopLagP99Ms)} (worst replica); consumer ${fmtMs(m.consumeMs)} per transaction of ${m.eventsPerTx.toFixed(1)} events; ${fmtClaims(m)}; at the end ${m.jobsDueEnd} jobs due, consumer lag ${m.consumerLagEnd}`;
}

function latencyRow(r: IntegrationsReport, p: LatencyPhase): string[] {
  return [
    p.label,
    fmtLat(p.byKind[0]!.p50),
    fmtLat(p.byKind[0]!.p99),
    fmtLat(p.byKind[1]!.p99),
    fmtLat(p.byKind[2]!.p50),
    fmtLat(p.byKind[2]!.p99),
    fmtLat(p.others.p99),
    fmtLat(p.others.max),
    fmtLat(p.worstOrgSlackP99),
    `${p.arrived.toLocaleString('en-US')} / ${p.expected.toLocaleString('en-US')}${p.missing ? ` (${p.missing.toLocaleString('en-US')} not within ${r.settings.drainTimeoutS} s)` : ''}`,
    String(p.duplicates),
    fmtMs(p.open.latency.p99),
    fmtMs(p.open.sendLag.p99),
    p.pauses.count > 0 ? `${p.pauses.count} (${fmtMs(p.pauses.worstMs)})` : '0',
  ];
}

export function integrationsMarkdown(r: IntegrationsReport, command: string, note: string | undefined): string {
  const s = r.settings;
  const out: string[] = [];
  const [run1, control, hanging] = r.latency as [LatencyPhase, LatencyPhase, LatencyPhase];
  out.push('## Integrations: issue filed → chat channel and tracker');
  out.push('');
  out.push(
    `\`${command}\` (tests/bench/integrations), ${r.machine.date}. Issues are filed through the gateway's public API ` +
      `(\`POST /api/v1/campaigns/{id}/issues\` with an API key) for ${s.orgs} organisations in turn, each with three connections: ` +
      `Slack, Teams and GitHub. Each issue makes ${CALLS_PER_ISSUE} provider calls: the Slack post, the Teams post and the GitHub create ` +
      '(a new issue is open in GitHub already, so the create job makes no status call). ' +
      'The providers are lean loopback stand-ins in a worker thread of the harness (tests/bench/integrations/providers-worker.mjs), ' +
      'answering as Slack (200 `ok`), Teams Workflows (202) and GitHub (201/200 with the issue JSON) do; not libs/provider-fakes, which keep every request ' +
      'in memory and search them linearly and would, over a run\'s ~100,000 calls, become what is measured. Every service runs as its own process from the bundle its ' +
      `image runs (\`NODE_ENV=production\`; tests/support/system.ts), the integration service as ${s.integrationReplicas} replica${s.integrationReplicas === 1 ? '' : 's'} ` +
      "(the chart's `replicaCount` is 2) sharing its schema and consumer. Latency = arrival at the stand-in − the moment the filing request was due " +
      '(open loop; both on the monotonic clock processes share), duplicates dropped, warm-up excluded. ' +
      `Run 1 follows an unmeasured run of ${s.warmRunS} s and a direct baseline; ` +
      `the control run and the run with a hanging webhook each start right after a \`VACUUM (ANALYZE)\` of every service's tables (as autovacuum would have done by then: the statements the services keep prepared are then planned again for the tables' present sizes) and last ${s.compareDurationS} s (run 1: ${s.durationS} s).`,
  );
  out.push('');
  const taken = Math.max(...[...r.latency.map((p) => p.cpu), ...r.throughput.map((t) => t.cpu)].map(coresTakenFromRun).filter(Number.isFinite));
  const noisy =
    taken > 0.2 || r.machine.loadAverage[0] > 1
      ? [
          '',
          `> **Not a quiet machine**: load average ${r.machine.loadAverage[0]} at start, and processes outside the benchmark and the hypervisor (steal) took up to ${taken.toFixed(2)} cores during a measured window. ` +
            'The service\'s latency here moves with the machine\'s load (its event loop waits for a core); compare these figures with the targets only after a rerun on a quiet machine.',
        ]
      : [];
  out.push(...systemPreamble(r, note, noisy));
  out.push('');
  out.push(
    "The baseline of the two latency targets is the public API's own create, answered in the same open loop (the filing request's due time → its 201): " +
      'the ratio says how many times the synchronous create the asynchronous path to the provider takes (outbox relay, NATS, the consumer\'s transaction, the job ' +
      "claim, the issue-service read of a tracker create, the call). The direct loop below (the generator posting to the Slack stand-in) is the transport's floor; " +
      'a ratio against it (a millisecond or two) would only restate the latency. The throughput baseline is the stand-ins\' own capacity under a bare loop of the same four calls.',
  );
  out.push('');
  out.push(`### Issue filed → provider arrival (open loop, ${s.rate} issues/s × ${CALLS_PER_ISSUE} calls = ${s.rate * CALLS_PER_ISSUE} calls/s, ${s.warmupS} s warm-up + measured seconds as named)`);
  out.push('');
  out.push(
    table(
      ['run', 'Slack p50', 'Slack p99', 'Teams p99', 'GitHub create p50', 'GitHub create p99', "others' p99", "others' max", 'worst org Slack p99', 'calls arrived / expected', 'dup.', 'create answer p99', 'generator lag p99', `machine pauses ≥ ${REPORTED_PAUSE_MS} ms (longest)`],
      [
        latencyRow(r, { ...run1, label: `run 1 (${run1.durationS} s)` }),
        latencyRow(r, { ...control, label: `control (${control.durationS} s)` }),
        latencyRow(r, { ...hanging, label: `org 0's Slack hanging (${hanging.durationS} s)` }),
      ],
    ),
  );
  out.push('');
  out.push(
    `"others" = every call except organisation 0's Slack posts (the connection that hangs in the last run), in every run alike. ` +
      `Direct baseline (${r.direct.label}, ${s.rate}/s, ${s.durationS} s): arrival p50 ${fmtMs(r.direct.arrival.p50)}, p99 ${fmtMs(r.direct.arrival.p99)}, ` +
      `answer p99 ${fmtMs(r.direct.open.latency.p99)}; ${r.direct.arrived}/${r.direct.expected} arrived.`,
  );
  out.push('');
  out.push(`Others' p99 (and max) of the issues filed in each ${TIMELINE_BUCKET_S} s of the measured window, in order:`);
  out.push('');
  for (const p of r.latency) out.push(`- ${p.label}: ${p.timeline.map((t) => `${fmtLat(t.othersP99)} (${fmtLat(t.othersMax)})`).join(' · ')}`);
  if (hanging.hanging) {
    const h = hanging.hanging;
    out.push('');
    out.push(
      `The hanging webhook held ${h.held} calls (each until \`INTEGRATION_CALL_TIMEOUT_MS\`); its connection's breaker opened ${h.breakerOpens}× during the run; ` +
        `its jobs when the run ended: ${Object.entries(h.jobs).map(([k, v]) => `${v} ${k}`).join(', ') || 'none'}. ` +
        (hanging.jobs
          ? `Due jobs of the hanging connection, waiting for a slot: up to ${hanging.jobs.hangingDueMax}; due jobs of every other connection meanwhile: mean ${hanging.jobs.dueMean.toFixed(0)}, max ${hanging.jobs.dueMax} (control run: mean ${control.jobs?.dueMean.toFixed(0) ?? '–'}, max ${control.jobs?.dueMax ?? '–'}).`
          : ''),
    );
  }
  out.push('');
  out.push('What the integration service reports over each window (its /metrics, every replica: means of `integration_job_lag_seconds` = queued → try started, `integration_call_duration_seconds` = one job run with its provider calls, `consumer_processing_duration_seconds` = one consumer transaction, inbox rows and jobs of its events and the commit, with `consumer_batch_size` events):');
  out.push('');
  for (const p of r.latency) out.push(`- ${p.label}: ${metricsCell(p.metrics)}`);
  const sustained = r.throughput.find((t) => t.name === 'sustained');
  if (sustained) out.push(`- sustained: ${metricsCell(sustained.metrics)}`);
  out.push('');
  out.push('### Throughput');
  out.push('');
  out.push(
    throughputTable(r.throughput, 'calls/s at the stand-ins', (t) => t.callsPerS, (t) => ({
      offered: `${fmtRate(t.filedPerS ?? NaN)} issues filed (offered ${fmtRate(t.offeredPerS ?? NaN)} calls)`,
      errorsOf: 'filing',
    })),
  );
  out.push('');
  out.push(
    `The sustained run files (at most ${s.fileConcurrency} requests in flight) whenever fewer than the feed window of calls are outstanding (filed issues × ${CALLS_PER_ISSUE} − arrivals), ` +
      'so the system never waits for work; the measured seconds start after the warm-up once the window is 90 % full, so the feed is paced by what arrives (for a system that keeps up with everything the feed sends: 30 s later or more, once the outstanding count grew by less than 2.5 % of the window over 10 s; 120 s at the latest); "bounded" = the outstanding count grew by less than 10 % of the window over the measured seconds and every call arrived after filing stopped.',
  );
  out.push('');
  out.push('### CPU (cores busy on average during each measured window)');
  out.push('');
  const groups = r.cpuGroups;
  out.push(cpuTable([...r.latency, ...r.throughput.map((t) => ({ label: t.name, cpu: t.cpu }))], groups));
  out.push('');
  out.push(
    '`postgres (X)` = the Postgres backends serving group X\'s connections; `postgres` = Postgres\'s background processes; `harness` = generator and stand-ins (worker thread); ' +
      '`other services` = campaign, delivery and webhook, which consume the same events; `other` = the rest of the machine; `stolen` = steal time from the hypervisor.',
  );
  out.push('');
  out.push('### CPU per provider call (µs, throughput windows: busy CPU of each group ÷ calls arrived in the window)');
  out.push('');
  const busy = groups.filter((g) => g !== 'stolen');
  out.push(
    table(
      ['window', ...busy, 'all'],
      r.throughput.map((t) => {
        const parts = busy.map((g) => perCall(t, g));
        return [t.name, ...parts.map((v) => (Number.isFinite(v) ? v.toFixed(0) : '–')), parts.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0).toFixed(0)];
      }),
    ),
  );
  const dbWindows: Array<{ label: string; db: PgActivity; calls: number }> = [];
  if (run1.db) dbWindows.push({ label: 'run 1', db: run1.db, calls: run1.expected });
  if (sustained?.db) dbWindows.push({ label: 'sustained', db: sustained.db, calls: sustained.callsPerS * sustained.windowS });
  if (dbWindows.length) {
    out.push('');
    out.push(`### Database time per provider call (backend-ms, sampled from pg_stat_activity every ${dbWindows[0]!.db.intervalMs} ms; lib/pg-activity.ts)`);
    out.push('');
    out.push(
      table(
        ['window', 'group', 'in a transaction, per call', 'of which (largest first)'],
        dbWindows.flatMap((w) =>
          Object.entries(w.db.seconds)
            .map(([g, acts]) => ({ g, acts, total: Object.values(acts).reduce((a, b) => a + b, 0) }))
            .sort((a, b) => b.total - a.total)
            .map(({ g, acts, total }) => [
              w.label,
              g,
              fmtMs((total / w.calls) * 1000),
              Object.entries(acts)
                .sort((a, b) => b[1] - a[1])
                .slice(0, 5)
                .map(([what, sec]) => `${what} ${fmtMs((sec / w.calls) * 1000)}`)
                .join(', '),
            ]),
        ),
      ),
    );
    out.push('');
    out.push(
      '`running` = in a statement on the CPU; `Lock:…`, `LWLock:…`, `IO:…` = in a statement, waiting; `idle in transaction` = a transaction held open while its client works or waits for its turn on the event loop. ' +
        `Run 1's figures are per call of its measured issues (${CALLS_PER_ISSUE} per issue); its window includes the drain after filing stopped.`,
    );
  }
  const jobsLines = [
    ...r.latency.filter((p) => p.jobs).map((p) => [p.name === 'run1' ? 'run 1' : p.name, p.jobs!] as const),
    ...(sustained?.jobs ? [['sustained', sustained.jobs] as const] : []),
  ].map(([w, j]) => `${w}: running mean ${j.runningMean.toFixed(0)}, max ${j.runningMax} (cap ${j.cap}); due and unclaimed mean ${j.dueMean.toFixed(0)}, max ${j.dueMax}${w === 'hanging' ? ' (other connections)' : ''}`);
  if (jobsLines.length) {
    out.push('');
    out.push(`The jobs table sampled every 250 ms (running = claimed by a replica and not finished; the cap is \`INTEGRATION_WORKERS\` × replicas): ${jobsLines.join('; ')}.`);
  }
  if (sustained?.rowsPerIssue) {
    const rows = Object.entries(sustained.rowsPerIssue).filter(([, v]) => v.ins + v.upd + v.del > 0.005);
    out.push('');
    out.push(
      `Rows the integration service wrote per issue filed in the sustained window, and the scans (index or sequential: one per lookup) it made of each table (pg_stat_user_tables of its schema): ${rows
        .map(([t, v]) => `${t} ${v.ins.toFixed(2)} inserted, ${v.upd.toFixed(2)} updated${v.del > 0.005 ? `, ${v.del.toFixed(2)} deleted` : ''} (${v.scans.toFixed(1)} scans)`)
        .join('; ')}. Jobs by state at the window's end: ${Object.entries(sustained.jobsEnd ?? {})
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}.`,
    );
  }
  out.push('');
  out.push('### Notes');
  out.push('');
  out.push(
    `- Calls measured: ${KINDS.join(', ')}. The stand-ins answer in about a millisecond (the direct baseline), so every figure above is the system's: the gateway and issue service filing, ` +
      "the outbox relay and NATS, the integration service's consumer (one transaction per batch of events: inbox rows, the connections and campaign lookups, the jobs and a NOTIFY) and worker " +
      '(claim, the issue service read of a tracker create, the call, then the job, activity and connection-health writes).',
  );
  out.push(
    "- The hanging run points organisation 0's Slack connection at a stand-in that reads each request and never answers, so its calls end at `INTEGRATION_CALL_TIMEOUT_MS`; " +
      'its breaker opens once enough of them failed. Its own Slack posts are left out of "others" in both compared runs.',
  );
  out.push(
    '- CPU and database time are billed by process (tests/bench/lib/cpu.ts with `postgresByClient`: each Postgres backend to the service it serves); the database time is sampled from pg_stat_activity (tests/bench/lib/pg-activity.ts).',
  );
  return out.join('\n');
}
