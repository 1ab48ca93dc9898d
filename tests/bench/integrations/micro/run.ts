// The integration service alone, in this process, with 10 organisations × (Slack, Teams, GitHub)
// on stand-ins in a child process (load.ts, which also publishes the events): CPU of this
// process and of its Postgres backends per provider call, statements per call, table scans and
// row writes per issue. Not a target of issue 26 (tests/bench/integrations is): a quick way to
// compare the service's own cost per call before and after a change, without the other six
// services. MICRO_SRC=<dir> runs another copy of services/integration/src (e.g. `git archive`d).
// npx tsx tests/bench/integrations/micro/run.ts [issues=3000] [rate=150] [replicas=1]
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from '@preflight/db';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, TEST_NATS_URL, deleteStreams, dropSchemas, isolatedName, serviceAuthConfig, serviceCall } from '@preflight/testing';
const src = process.env.MICRO_SRC ?? '../../../../services/integration/src';
const { startIntegrationService } = (await import(`${src}/app.ts`)) as typeof import('../../../../services/integration/src/app.ts');
const { loadIntegrationConfig } = (await import(`${src}/config.ts`)) as typeof import('../../../../services/integration/src/config.ts');
type RunningIntegrationService = Awaited<ReturnType<typeof startIntegrationService>>;
import { cpuMeter } from '../../lib/cpu.ts';

const [count = 3000, rate = 150, replicas = 1] = process.argv.slice(2).map(Number);
const schema = isolatedName('integration_micro');
const stream = isolatedName('integration_micro_events');
const prefix = isolatedName('integration_micro_subj');

let statements = 0;
const byText = new Map<string, number>();
const origQuery = pg.Client.prototype.query;
(pg.Client.prototype as any).query = function (this: pg.Client, ...args: any[]) {
  statements++;
  const q = args[0];
  const text: string = typeof q === 'string' ? q : (q?.text ?? '?');
  const key = text.replace(/\s+/g, ' ').slice(0, 70);
  byText.set(key, (byText.get(key) ?? 0) + 1);
  return (origQuery as any).apply(this, args);
};

const child = fork(new URL('./load.ts', import.meta.url).pathname, [prefix], { execArgv: ['--import', 'tsx'] });
const ask = <T>(msg: object, type: string) => new Promise<T>((resolve) => { const on = (m: any) => { if (m.type === type) { child.off('message', on); resolve(m); } }; child.on('message', on); child.send(msg); });
const port = await new Promise<number>((resolve) => child.once('message', (m: any) => resolve(m.port)));
const base = `http://127.0.0.1:${port}`;

const services: RunningIntegrationService[] = [];
for (let r = 0; r < replicas; r++) {
  const config = loadIntegrationConfig({
    INTEGRATION_PORT: '0', DATABASE_URL: TEST_DATABASE_URL, DB_SCHEMA: schema, DB_POOL_MAX: '10', NATS_URL: TEST_NATS_URL,
    EVENTS_STREAM: stream, EVENTS_SUBJECT_PREFIX: prefix, EVENTS_STREAM_MAX_AGE_HOURS: '1', INTEGRATION_SECRET_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    ISSUE_URL: base, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn', INTEGRATION_SECRET_CHECK_INTERVAL_MS: '0',
  }, false);
  services.push(await startIntegrationService({ config: { ...config, ...serviceAuthConfig('integration') }, logger: createLogger('integration-micro', { level: 'warn' }), host: '127.0.0.1', exitOnShutdown: false }));
}
const call = serviceCall('integration', () => services[0]!.url);
const orgs: string[] = [];
const campaigns: string[] = [];
for (let k = 0; k < 10; k++) {
  const orgId = randomUUID();
  orgs.push(orgId);
  campaigns.push(randomUUID());
  for (const body of [
    { kind: 'slack', name: 'Slack', config: {}, credentials: { webhookUrl: `${base}/slack/T${k}/B${k}/x` } },
    { kind: 'teams', name: 'Teams', config: {}, credentials: { webhookUrl: `${base}/teams/${k}/invoke?sig=x` } },
    { kind: 'github', name: 'GitHub', config: { owner: 'bench', repo: `org-${k}`, apiBaseUrl: base }, credentials: { token: 'ghp_bench' } },
  ]) {
    const res = await call('POST', `/admin/v1/organizations/${orgId}/integrations`, { as: { kind: 'admin' }, body });
    if (res.status !== 201) throw new Error(`connection: ${res.status} ${JSON.stringify(res.body)}`);
  }
}
await ask({ type: 'campaigns', orgs, campaigns }, 'campaigns');
await new Promise((r) => setTimeout(r, 500));
const db = services[0]!.database.db;
const arrived = async () => { const c = (await ask<any>({ type: 'counts' }, 'counts')).counts; return c.slack + c.teams + c.ghCreate; };
async function phase(n: number) {
  const target = (await arrived()) + n * 3;
  const t0 = performance.now();
  await ask({ type: 'file', orgs, campaigns, count: n, rate }, 'filed');
  while ((await arrived()) < target) {
    if (performance.now() - t0 > 120_000) throw new Error(`stuck at ${await arrived()} of ${target}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return (performance.now() - t0) / 1000;
}
await phase(Math.min(300, count));
const stats = async () => (await sql<any>`select relname, n_tup_ins, n_tup_upd, coalesce(seq_scan,0) + coalesce(idx_scan,0) as scans from pg_stat_user_tables where schemaname = ${schema}`.execute(db)).rows;
await new Promise((r) => setTimeout(r, 800));
const before = await stats();
const meter = cpuMeter({ integration: [process.pid], harness: [child.pid!] }, { postgresByClient: true });
await meter.prepare();
statements = 0; byText.clear();
const elu0 = performance.eventLoopUtilization();
meter.start();
const cpu0 = process.cpuUsage();
const wall = await phase(count);
const cpu1 = process.cpuUsage(cpu0);
meter.stop();
const elu = performance.eventLoopUtilization(elu0);
await new Promise((r) => setTimeout(r, 800));
const after = await stats();
const calls = count * 3;
const u = meter.usage!;
const c = await ask<any>({ type: 'counts' }, 'counts');
console.log(`issues ${count} at ${rate}/s, replicas ${replicas}: drained in ${wall.toFixed(1)} s; counts ${JSON.stringify(c.counts)}`);
console.log(`integration process CPU per call: ${(((cpu1.user + cpu1.system) / calls)).toFixed(0)} µs (user ${(cpu1.user / calls).toFixed(0)}, sys ${(cpu1.system / calls).toFixed(0)}); ELU ${elu.utilization.toFixed(2)}`);
console.log(`meter per call µs: ${Object.entries(u.seconds).map(([g, s]) => `${g} ${((s * 1e6) / calls).toFixed(0)}`).join(', ')}`);
console.log(`statements per call ${(statements / calls).toFixed(2)}`);
for (const [k, v] of [...byText].sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(`  ${(v / count).toFixed(2)}/issue  ${k}`);
for (const a of after) {
  const b = before.find((x: any) => x.relname === a.relname) ?? { n_tup_ins: 0, n_tup_upd: 0, scans: 0 };
  console.log(`  ${a.relname}: ins ${((a.n_tup_ins - b.n_tup_ins) / count).toFixed(2)} upd ${((a.n_tup_upd - b.n_tup_upd) / count).toFixed(2)} scans ${((a.scans - b.scans) / count).toFixed(2)} per issue`);
}
const lag = await sql<any>`select action, avg(extract(epoch from (coalesce(finished_at, now()) - created_at)))*1000 as ms from jobs group by action`.execute(db);
console.log('created → finished ms:', lag.rows.map((r: any) => `${r.action} ${Number(r.ms).toFixed(0)}`).join(', '));
for (const s of services) await s.shutdown('micro done');
await deleteStreams([stream]);
await dropSchemas([schema]);
const exited = new Promise((resolve) => child.once('exit', resolve));
child.send({ type: 'close' });
await exited;
process.exit(0);
