import { createWriteStream, mkdirSync, writeFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { startFakeSlack, type FakeSlack } from '@preflight/provider-fakes';
import { REPO_ROOT, type ServiceName, type ServiceProcess } from '../../scripts/lib/services.ts';
import { admin, call } from '../support/client.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { startSystem, type RunningSystem } from '../support/system.ts';
import { analyse, type Arrivals, type Crash, type Phase, type PhaseFigures, type StoredIssue } from './analyse.ts';
import type { Dependency, PostgresDependency } from './infra.ts';
import { attemptOf, Load, type Attempt, type Target } from './load.ts';
import { SERVICE_FAULTS, type ChaosSettings, type DEPENDENCY_FAULTS } from './settings.ts';

export interface Infra {
  postgres: PostgresDependency;
  redis: Dependency;
  nats: Dependency;
}

export interface ChaosResult {
  settings: ChaosSettings;
  figures: PhaseFigures[];
  /** Service processes that exited without being killed by the suite (restarted by its supervisor). */
  crashes: Crash[];
  attempts: Attempt[];
  skipped: number;
  /** Seconds from the load's stop until every stored issue's events had arrived (or the drain timed out). */
  drainedS: number;
  drainComplete: boolean;
  storedTotal: number;
  deliveriesTotal: number;
  slackTotal?: number;
  startupS: number;
  logFile: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const log = (msg: string) => process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** Service output (warnings and errors at LOG_LEVEL=warn) and the suite's own notes, in one file kept after the run. */
function runLog(): { file: string; stream: WriteStream; note: (line: string) => void; attach: (p: ServiceProcess) => void } {
  const dir = path.join(REPO_ROOT, '.preflight', 'chaos');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'last-run.log');
  const stream = createWriteStream(file, { flags: 'w' });
  const note = (line: string) => stream.write(`${new Date().toISOString()} ${line}\n`);
  const attach = (p: ServiceProcess) => {
    for (const s of [p.child.stdout, p.child.stderr]) if (s) createInterface({ input: s }).on('line', (line) => note(`[${p.name} ${p.child.pid}] ${line}`));
  };
  return { file, stream, note, attach };
}

/**
 * `aborting` says when run.ts is tearing the run down (Ctrl-C, SIGTERM, deadline): service exits
 * are then expected (Ctrl-C in a terminal reaches the services too), not crashes to restart.
 */
export async function runChaos(s: ChaosSettings, infra: Infra, addUndo: (step: () => Promise<unknown>) => void, aborting: () => boolean = () => false): Promise<ChaosResult> {
  const logs = runLog();
  addUndo(() => new Promise<void>((resolve) => logs.stream.end(() => resolve())));
  const tag = Date.now().toString(36);

  const startedAt = Date.now();
  log(`starting the services against postgres ${infra.postgres.url}, ${infra.redis.url}, ${infra.nats.url}`);
  const sys: RunningSystem = await startSystem(
    { DATABASE_URL: infra.postgres.url, REDIS_URL: infra.redis.url, NATS_URL: infra.nats.url, LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn' },
    { built: s.built },
  );
  addUndo(() => sys.stop());
  // A supervisor, as the orchestrator would be: a service process that exits when the suite did
  // not kill it is a crash, recorded in the phase it happened in, and started again.
  let stopping = false;
  addUndo(async () => {
    stopping = true;
  });
  const killing = new Set<ServiceName>();
  const crashes: Crash[] = [];
  const restarting = new Map<ServiceName, Promise<void>>();
  const supervise = (p: ServiceProcess) => {
    p.child.once('exit', (code, signal) => {
      if (stopping || aborting() || killing.has(p.name) || sys.processes[p.name] !== p) return;
      const crash: Crash = { service: p.name, at: Date.now(), exit: signal ?? `code ${code}`, reason: lastFatal.get(p.name) ?? '' };
      crashes.push(crash);
      log(`${p.name} exited on its own (${crash.exit}${crash.reason ? `: ${crash.reason}` : ''}); restarting it`);
      logs.note(`[chaos] ${p.name} crashed (${crash.exit}); restarting`);
      const again = (async () => {
        try {
          await sys.restart(p.name);
          crash.backAt = Date.now();
          watch(sys.processes[p.name]);
        } catch (err) {
          log(`${p.name} did not come back: ${(err as Error).message}`);
        } finally {
          restarting.delete(p.name);
        }
      })();
      restarting.set(p.name, again);
    });
  };
  /** The last fatal log line of each service: why it exited. */
  const lastFatal = new Map<ServiceName, string>();
  const watch = (p: ServiceProcess) => {
    logs.attach(p);
    supervise(p);
    if (p.child.stdout) {
      createInterface({ input: p.child.stdout }).on('line', (line) => {
        if (!line.includes('"level":"fatal"')) return;
        try {
          const entry = JSON.parse(line);
          lastFatal.set(p.name, `${entry.msg}: ${entry.err?.message ?? ''}`);
        } catch {
          lastFatal.set(p.name, line.slice(0, 200));
        }
      });
    }
  };
  for (const p of Object.values(sys.processes)) watch(p);
  const startupS = (Date.now() - startedAt) / 1000;
  log(`services ready in ${startupS.toFixed(1)} s; gateway ${sys.gatewayUrl}`);

  const receiver: Receiver = await startReceiver();
  addUndo(() => receiver.close());
  let slack: FakeSlack | undefined;
  if (s.slack) {
    slack = await startFakeSlack();
    const fake = slack;
    addUndo(() => fake.close());
  }

  // Organisations, each with a write key, active campaigns, a webhook for IssueCreated to the receiver and a Slack channel.
  const a = admin(sys);
  const targets: Target[] = [];
  for (let k = 0; k < s.orgs; k++) {
    const org = await a.createOrg(`Chaos ${tag} ${k}`);
    const key = await a.createKey(org.id, ['read', 'write', 'webhooks'], 'chaos');
    const site = await a.createSite(org.id, `Chaos site ${k}`);
    for (let c = 0; c < s.campaignsPerOrg; c++) {
      const campaign = await a.createCampaign(site.id, `Chaos launch ${k}.${c}`);
      await a.setCampaignStatus(campaign.id, 'Active');
      targets.push({ campaignId: campaign.id, apiKey: key.key });
    }
    const hook = await call(sys, 'POST', '/api/v1/webhooks', { apiKey: key.key, body: { url: receiver.url, events: ['IssueCreated'], name: 'chaos receiver' } });
    if (hook.status !== 201) throw new Error(`subscribing a webhook → ${hook.status} ${hook.text}`);
    if (slack) {
      const res = await call(sys, 'POST', `/admin/v1/organizations/${org.id}/integrations`, {
        token: sys.adminToken,
        body: { kind: 'slack', name: `Chaos ${k}`, config: {}, credentials: { webhookUrl: slack.webhookUrl(`#chaos-${k}`) } },
      });
      if (res.status !== 201) throw new Error(`connecting Slack → ${res.status} ${res.text}`);
    }
  }
  log(`${s.orgs} organisations × ${s.campaignsPerOrg} active campaigns, webhooks → ${receiver.url}${slack ? `, Slack → ${slack.url}` : ''}`);

  const load = new Load(sys.gatewayUrl, targets, tag, s.keyedShare);
  addUndo(() => load.close());
  const phases: Phase[] = [];

  // Warm-up: one issue per campaign, retried until the issue service knows the campaign (it learns it from campaign events).
  const setup: Phase = { name: 'setup', fault: 'warm-up: one issue per campaign', startAt: Date.now(), endAt: Infinity, clientChecks: false };
  phases.push(setup);
  for (const t of targets) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = await load.file(t);
      if (r.status === 201) break;
      if (Date.now() > deadline) throw new Error(`warm-up filing for campaign ${t.campaignId} → ${r.status ?? r.error} ${r.body ?? ''}`);
      await sleep(250);
    }
  }

  let current = setup;
  const beginPhase = (p: Omit<Phase, 'startAt' | 'endAt'>) => {
    const now = Date.now();
    current.endAt = now;
    current = { ...p, startAt: now, endAt: Infinity };
    phases.push(current);
    logs.note(`[chaos] phase ${p.name}`);
    return current;
  };

  load.start(s.rate);
  log(`load: ${s.rate} issues/s over ${targets.length} campaigns`);
  beginPhase({ name: 'baseline', fault: 'none' });
  await sleep(s.baselineS * 1000);

  const restartService = async (name: ServiceName) => {
    await restarting.get(name);
    killing.add(name);
    try {
      await sys.restart(name, 'SIGKILL');
    } finally {
      killing.delete(name);
    }
    watch(sys.processes[name]);
  };
  for (const fault of s.faults) {
    const isService = (SERVICE_FAULTS as readonly string[]).includes(fault);
    const what = isService
      ? `kill -9 ${fault}, restart`
      : fault === 'postgres'
        ? `pg_ctl stop -m immediate${s.holdS ? `, ${s.holdS} s down` : ''}, start`
        : `kill -9 ${fault}${s.holdS ? `, ${s.holdS} s down` : ''}, restart`;
    const phase = beginPhase({ name: fault, fault: what, gatewayDown: fault === 'gateway' });
    await sleep(s.settleS * 1000);
    phase.faultAt = Date.now();
    logs.note(`[chaos] fault: ${what}`);
    if (isService) {
      const child = sys.processes[fault as ServiceName].child;
      child.once('exit', () => (phase.diedAt = Date.now()));
      await restartService(fault as ServiceName);
    } else {
      const dep = infra[fault as (typeof DEPENDENCY_FAULTS)[number]];
      await dep.kill();
      if (s.holdS) await sleep(s.holdS * 1000);
      await dep.start();
    }
    phase.backAt = Date.now();
    log(`${fault}: ${what}; back after ${((phase.backAt - phase.faultAt) / 1000).toFixed(1)} s`);
    logs.note(`[chaos] ${fault} back`);
    await sleep(s.recoveryS * 1000);
  }
  await load.stop();
  current.endAt = Date.now();
  await Promise.all(restarting.values());
  const stoppedAt = Date.now();
  log(`load stopped: ${load.attempts.length} filings (${load.skipped} not sent: ${load.skipped ? 'too many in flight' : 'none'})`);

  // Drain: every stored issue's IssueCreated (and announcement) must arrive.
  const db = new pg.Client({ connectionString: infra.postgres.url });
  await db.connect();
  addUndo(() => db.end());
  const storedIssues = async (): Promise<StoredIssue[]> => {
    const { rows } = await db.query<{ id: string; campaign_id: string; seq_number: number; title: string }>(
      `select id, campaign_id, seq_number, title from "${sys.schemas.issue}".issues where campaign_id = any($1::uuid[])`,
      [targets.map((t) => t.campaignId)],
    );
    return rows.map((r) => ({ id: r.id, campaignId: r.campaign_id, seqNumber: r.seq_number, title: r.title }));
  };
  const arrivals: Arrivals = { webhook: new Map(), ...(slack ? { slack: new Map() } : {}) };
  let parsedDeliveries = 0;
  let parsedSlack = 0;
  const collect = () => {
    for (; parsedDeliveries < receiver.received.length; parsedDeliveries++) {
      try {
        const envelope = JSON.parse(receiver.received[parsedDeliveries]!.body);
        if (envelope.eventType !== 'IssueCreated') continue;
        const id = envelope.data?.issueId as string;
        arrivals.webhook.set(id, [...(arrivals.webhook.get(id) ?? []), envelope.id]);
      } catch {
        // not an envelope: counted nowhere
      }
    }
    if (slack && arrivals.slack) {
      for (; parsedSlack < slack.messages.length; parsedSlack++) {
        const ids = new Set(JSON.stringify(slack.messages[parsedSlack]!.body).match(/\/dashboard\/issues\/([0-9a-f-]{36})/g) ?? []);
        for (const m of ids) {
          const id = m.slice('/dashboard/issues/'.length);
          arrivals.slack.set(id, (arrivals.slack.get(id) ?? 0) + 1);
        }
      }
    }
  };
  let stored: StoredIssue[];
  let drainComplete = false;
  const drainDeadline = Date.now() + s.drainS * 1000;
  for (;;) {
    collect();
    stored = await storedIssues();
    const missing = stored.filter((i) => !arrivals.webhook.has(i.id) || (arrivals.slack && !arrivals.slack.has(i.id)));
    if (missing.length === 0) {
      drainComplete = true;
      break;
    }
    if (Date.now() > drainDeadline) {
      log(`drain timed out with ${missing.length} issue(s) missing an event`);
      break;
    }
    await sleep(1_000);
  }
  const drainedS = (Date.now() - stoppedAt) / 1000;
  // Late duplicates (a redelivery after a lease expired) still count.
  await sleep(3_000);
  collect();
  stored = await storedIssues();
  log(`drained in ${drainedS.toFixed(1)} s: ${stored.length} issues stored, ${receiver.received.length} deliveries${slack ? `, ${slack.messages.length} Slack messages` : ''}`);

  const figures = analyse(phases, load.attempts, stored, arrivals, crashes);
  // Every filing and phase, for a closer look after the run (kept beside the log).
  writeFileSync(path.join(path.dirname(logs.file), 'last-run.json'), JSON.stringify({ settings: s, phases, crashes, storedAfterRefusal: figures.flatMap((f) => f.storedAfterRefusal), attempts: load.attempts }, null, 1));
  // Evidence for the report: the first lost issues and non-503 failures, with what the client and the services said.
  for (const f of figures) {
    for (const bad of [...f.badFailures, ...f.other5xx].slice(0, 3)) logs.note(`[chaos] ${f.phase.name}: attempt #${bad.n} → ${bad.status ?? bad.error} ${bad.body ?? ''}`);
    for (const id of f.lostIds.slice(0, 5)) logs.note(`[chaos] ${f.phase.name}: acknowledged issue ${id} not stored as answered`);
    for (const id of f.eventsLostIds.slice(0, 5)) logs.note(`[chaos] ${f.phase.name}: stored issue ${id} without an IssueCreated delivery`);
  }
  // Titles that name no attempt of this run would mean the query picked up something else.
  const foreign = stored.filter((i) => attemptOf(i.title) === undefined).length;
  if (foreign) log(`${foreign} stored issue(s) not filed by this run`);

  return {
    settings: s,
    figures,
    crashes,
    attempts: load.attempts,
    skipped: load.skipped,
    drainedS,
    drainComplete,
    storedTotal: stored.length,
    deliveriesTotal: receiver.received.length,
    ...(slack ? { slackTotal: slack.messages.length } : {}),
    startupS,
    logFile: logs.file,
  };
}
