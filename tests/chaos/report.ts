import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { machineLine, table } from '../bench/lib/report.ts';
import type { MachineFacts } from '../bench/lib/machine.ts';
import { checks, OUTAGE_ALLOWANCE_S, type Check, type PhaseFigures } from './analyse.ts';
import type { ChaosResult } from './suite.ts';

export const START = '<!-- chaos:start -->';
export const END = '<!-- chaos:end -->';

const s1 = (v: number) => `${v.toFixed(1)} s`;

function saw(f: PhaseFigures): string {
  if (f.saw.size === 0) return '–';
  return [...f.saw.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ×${n}`)
    .join('; ');
}

export interface Verdict {
  phase: string;
  failed: Check[];
}

export function verdicts(result: ChaosResult): Verdict[] {
  return result.figures.map((f) => ({ phase: f.phase.name, failed: checks(f).filter((c) => !c.pass && !c.informational) }));
}

export function chaosMarkdown(result: ChaosResult, machine: MachineFacts, loadAtEnd: number[], command: string, pgVersion: string, note?: string): string {
  const s = result.settings;
  const rows = result.figures.map((f) => {
    const failed = checks(f).filter((c) => !c.pass && !c.informational);
    const notes = checks(f).filter((c) => !c.pass && c.informational);
    return [
      f.phase.name,
      f.phase.fault,
      f.downS === undefined ? '–' : s1(f.downS),
      String(f.filed),
      String(f.acknowledged),
      f.storedUnacknowledged ? `${f.stored} (${f.storedUnacknowledged} not acked)` : String(f.stored),
      String(f.lost),
      String(f.seqGaps.length),
      String(f.eventsLost),
      `${f.duplicateDeliveries}${f.duplicateEvents ? ` (+${f.duplicateEvents} issues with 2 events)` : ''}`,
      f.slackLost === undefined ? '–' : `${f.slackLost} / ${f.slackDuplicates}`,
      f.filed === 0 ? '–' : f.phase.clientChecks === false ? 'n/a' : f.outageS ? `${s1(f.outageS)} (≤ ${s1((f.downS ?? 0) + OUTAGE_ALLOWANCE_S)})` : '0 s',
      saw(f) + (f.inFlightAtKill ? ` (${f.inFlightAtKill} in flight at the kill)` : ''),
      String(f.other5xx.length),
      f.crashes.length ? f.crashes.map((c) => `${c.service} (${c.reason || c.exit})`).join('; ') : '–',
      (failed.length ? `**FAIL**: ${failed.map((c) => c.target).join('; ')}` : 'pass') + (notes.length ? ` (note: ${notes.map((c) => c.detail).join('; ')})` : ''),
    ];
  });
  const sum = (pick: (f: PhaseFigures) => number) => result.figures.reduce((n, f) => n + pick(f), 0);
  const slackCol = result.slackTotal === undefined ? '–' : `${sum((f) => f.slackLost ?? 0)} / ${sum((f) => f.slackDuplicates ?? 0)}`;
  rows.push([
    '**all**',
    '',
    '',
    String(sum((f) => f.filed)),
    String(sum((f) => f.acknowledged)),
    String(result.storedTotal),
    String(sum((f) => f.lost)),
    String(sum((f) => f.seqGaps.length)),
    String(sum((f) => f.eventsLost)),
    String(sum((f) => f.duplicateDeliveries)),
    slackCol,
    '',
    '',
    String(sum((f) => f.other5xx.length)),
    String(result.crashes.length),
    verdicts(result).every((v) => v.failed.length === 0) ? '**pass**' : '**FAIL**',
  ]);
  const head = ['Phase', 'Fault', 'Down', 'Filed', 'Acked (201)', 'Stored', 'Issues lost', 'Seq gaps', 'Events lost', 'Dup. deliveries', 'Slack lost / dup.', 'Outage (limit)', 'Client saw instead of 201', '5xx ≠ 503', 'Crashed', 'Targets'];

  const failures = result.figures.flatMap((f) => checks(f).filter((c) => !c.pass && !c.informational).map((c) => `- ${f.phase.name}: ${c.target} — ${c.detail}`));
  const notes = result.figures.flatMap((f) => checks(f).filter((c) => !c.pass && c.informational).map((c) => `- ${f.phase.name}: ${c.target} — ${c.detail}`));
  const lines = [
    `Command: \`${command}\`, ${machine.date.slice(0, 16).replace('T', ' ')} UTC.`,
    `Machine: ${machineLine(machine, [`load average ${machine.loadAverage.join(' / ')} at the start, ${loadAtEnd.map((v) => v.toFixed(2)).join(' / ')} at the end (1/5/15 min; the machine is shared)`])}.`,
    ...(note ? [`Note: ${note}`] : []),
    `Load: ${s.rate} issues/s through the gateway (open loop, no retries; ${Math.round(s.keyedShare * 100)} % of them with an Idempotency-Key of their own) over ${s.orgs} organisations × ${s.campaignsPerOrg} active campaigns; every organisation has a webhook for IssueCreated on a local receiver${s.slack ? ' and a Slack connection on the provider fake' : ''}. Services ${s.built ? 'from their bundles' : 'from source (tsx)'}, one process each, against PostgreSQL ${pgVersion}, Redis and NATS of the suite's own. Each fault after ${s.settleS} s of load, then ${s.recoveryS} s of recovery once the faulted thing is back (${s.baselineS} s baseline first); NATS and Redis stay down ${s.holdS} s, Postgres is stopped immediate and started after ${s.holdS} s. Services start in ${s1(result.startupS)}.`,
    '',
    table(head, rows),
    '',
    `Down: fault → the faulted process ready again (a service's \`/readyz\` 200; NATS, Redis, Postgres accepting clients). Outage: first failed filing sent → last failed answer received. Stored counts the phase's filings found in the issue table (after a transport error a filing may be stored without its 201). Events lost: stored issues with no IssueCreated delivery at the receiver after the drain (${result.drainComplete ? `complete ${s1(result.drainedS)} after the load stopped` : `**timed out** after ${s1(result.drainedS)}`}); duplicates: deliveries of an envelope id already delivered (delivery is at least once). Crashed: service processes that exited without being killed by the suite; its supervisor starts them again, as an orchestrator would. ${result.deliveriesTotal} deliveries${result.slackTotal !== undefined ? `, ${result.slackTotal} Slack messages` : ''} in all; ${result.skipped} filings not sent (client at its in-flight bound).`,
    '',
    failures.length ? `Targets missed:\n\n${failures.join('\n')}` : `Every target met in every phase: 0 issues lost, sequence numbers gapless, 0 events lost, every failure a 503 with \`Retry-After\` (or a refused connection while the gateway was down), no other 5xx, no crash, every outage within its down time + ${OUTAGE_ALLOWANCE_S} s.`,
    ...(notes.length ? ['', `Noted (not a target of issue 22):\n\n${notes.join('\n')}`] : []),
  ];
  return lines.join('\n');
}

/** Replaces what is between the chaos markers of `file`; adds the markers before "## Not covered here yet" (or at the end) when missing. */
export function writeChaosSection(file: string, markdown: string): void {
  const block = `${START}\n${markdown.trim()}\n${END}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const i = text.indexOf(START);
  const j = text.indexOf(END);
  if (i >= 0 && j > i) text = text.slice(0, i) + block + text.slice(j + END.length);
  else {
    const at = text.indexOf('## Not covered here yet');
    const section = `## Chaos suite\n\n${block}\n\n`;
    text = at >= 0 ? text.slice(0, at) + section + text.slice(at) : `${text.trimEnd()}\n\n${section}`;
  }
  writeFileSync(file, text);
}
