/**
 * `npm start`: runs the whole system locally. Checks that PostgreSQL, Redis and NATS answer,
 * creates the database, starts every service as its own process (each applies its own
 * migrations), seeds a demo organisation on first run, prints what to try, and stops every
 * service cleanly on Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { generateDeploymentKeys, type DeploymentKeys } from '@preflight/service-auth';
import { localKeyRings } from './lib/local-keys.ts';
import { REPO_ROOT, SERVICES, spawnService, waitUntilReady, type ServiceName, type ServiceProcess } from './lib/services.ts';

const env = {
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/preflight',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
};
const STATE_FILE = join(REPO_ROOT, '.preflight', 'local.json');

interface LocalState {
  adminToken?: string;
  /** Before key rings moved into the database: adopted by localKeyRings, then removed. */
  webhookSecretKeys?: string;
  integrationSecretKeys?: string;
  /** Each service's SERVICE_AUTH_KEY and the SERVICE_AUTH_PUBLIC_KEYS ring they all trust. */
  serviceAuth?: DeploymentKeys;
  demo?: { orgId: string; key: string; campaignId: string };
  /** The demo organisation's Owner in the console: e-mail and the generated password. */
  demoOwner?: { orgId: string; email: string; password: string };
}

const START_HINTS: Record<string, string> = {
  PostgreSQL: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  Redis: 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
  NATS: 'nats-server -js -a 127.0.0.1 -p 4222 &   (JetStream must be enabled: -js)',
};

function reachable(url: string, fallbackPort: number): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname, port: Number(u.port || fallbackPort), timeout: 2000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
  });
}

async function checkInfrastructure(): Promise<void> {
  const checks: Array<[string, string, string, number]> = [
    ['PostgreSQL', 'DATABASE_URL', env.DATABASE_URL, 5432],
    ['Redis', 'REDIS_URL', env.REDIS_URL, 6379],
    ['NATS', 'NATS_URL', env.NATS_URL, 4222],
  ];
  let ok = true;
  for (const [name, variable, url, port] of checks) {
    if (await reachable(url, port)) continue;
    ok = false;
    const u = new URL(url);
    console.error(`✗ ${name} is not reachable at ${u.hostname}:${u.port || port} (${variable}).`);
    console.error(`  Start it with: ${START_HINTS[name]}`);
    console.error(`  or point ${variable} at a running one.`);
  }
  if (!ok) process.exit(1);
}

async function ensureDatabase(): Promise<void> {
  const target = new URL(env.DATABASE_URL);
  const name = decodeURIComponent(target.pathname.replace(/^\//, '')) || 'postgres';
  const admin = new URL(env.DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      await client.query(`create database "${name.replaceAll('"', '""')}"`);
      console.log(`• created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

function loadState(): LocalState {
  try {
    return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as LocalState;
  } catch {
    return {};
  }
}

function saveState(state: LocalState): void {
  mkdirSync(join(REPO_ROOT, '.preflight'), { recursive: true });
  writeFileSync(STATE_FILE, JSON.stringify(state, null, 2), { mode: 0o600 });
}

/** Pino lines become `name level message key=value…`; anything else passes through. */
function printLine(name: ServiceName, line: string): void {
  try {
    const { level, msg, time: _t, service: _s, name: _n, pid: _p, hostname: _h, ...rest } = JSON.parse(line) as Record<string, unknown>;
    const fields = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
      .join(' ');
    console.log(`${name.padEnd(11)} ${String(level).padEnd(5)} ${String(msg ?? '')} ${fields}`);
  } catch {
    console.log(`${name.padEnd(11)} ${line}`);
  }
}

async function api(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function seedDemo(base: string, adminToken: string, state: LocalState): Promise<NonNullable<LocalState['demo']>> {
  if (state.demo) {
    const orgs = (await api(base, adminToken, 'GET', '/admin/v1/organizations')) as Array<{ id: string }>;
    if (orgs.some((o) => o.id === state.demo!.orgId)) return state.demo;
  }
  const org = await api(base, adminToken, 'POST', '/admin/v1/organizations', { name: 'Demo Organization' });
  const key = await api(base, adminToken, 'POST', `/admin/v1/organizations/${org.id}/api-keys`, {
    name: 'demo-key',
    scopes: ['read', 'write', 'webhooks'],
  });
  const site = await api(base, adminToken, 'POST', `/admin/v1/organizations/${org.id}/sites`, {
    name: 'Demo shop',
    url: 'https://shop.example.com',
  });
  const campaign = await api(base, adminToken, 'POST', `/admin/v1/sites/${site.id}/campaigns`, { name: 'Spring launch' });
  await api(base, adminToken, 'POST', `/admin/v1/campaigns/${campaign.id}/status`, { to: 'Active', reason: 'Testing starts' });
  await api(base, adminToken, 'POST', `/admin/v1/campaigns/${campaign.id}/issues`, {
    title: 'Checkout button overlaps the footer on small screens',
    severity: 'High',
    type: 'Bug',
    pageUrl: 'https://shop.example.com/checkout',
    browserName: 'Firefox',
    deviceType: 'Mobile',
    testerEmail: 'tester@example.com',
  });
  console.log('• seeded the demo organisation, API key, site, campaign and an issue');
  return { orgId: org.id, key: key.key, campaignId: campaign.id };
}

/** Cookies a response sets, merged into `jar` (a tiny client for the invitation form below). */
function keepCookies(jar: Map<string, string>, res: Response): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq > 0) jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
}

const DEMO_OWNER_EMAIL = 'owner@demo.preflight.local';

/**
 * Accepts an invitation of `email` to the demo organisation on the console's invitation page
 * (through the gateway, as a browser would). A new account sets its name and `password`; an
 * existing one signs in with `password` if it is the account's (`knowsPassword`), else the
 * invitation is withdrawn and false answered (an account older than .preflight/local.json).
 */
async function acceptDemoInvitation(base: string, adminToken: string, orgId: string, email: string, password: string, knowsPassword: boolean): Promise<boolean> {
  const invitation = await api(base, adminToken, 'POST', `/admin/v1/organizations/${orgId}/invitations`, { email, role: 'Owner', organizationName: 'Demo Organization' });
  const url = invitation.url.replace(/^https?:\/\/[^/]+/, base);
  const jar = new Map<string, string>();
  const page = await fetch(url);
  keepCookies(jar, page);
  const html = await page.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!page.ok || !csrf) throw new Error(`the invitation page answered ${page.status}`);
  const existing = !html.includes('name="name"');
  if (existing && !knowsPassword) {
    await api(base, adminToken, 'DELETE', `/admin/v1/organizations/${orgId}/invitations/${invitation.id}`);
    return false;
  }
  const form: Record<string, string> = existing ? { password } : { name: 'Demo Owner', password };
  const accepted = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(invitation.url).origin, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    body: new URLSearchParams({ _csrf: csrf, ...form }).toString(),
  });
  if (accepted.status !== 303) throw new Error(`accepting the invitation answered ${accepted.status}`);
  return true;
}

/**
 * The demo organisation's Owner, made the way an operator makes any organisation's first
 * Owner: an invitation through the admin API, accepted on the console's invitation page. Kept in
 * .preflight/local.json; made again only when the organisation is new. The account is
 * owner@demo.preflight.local, whose password local.json keeps; when that file was lost but the
 * database kept, the account's password is unknown, so the new demo organisation's Owner is
 * owner-<its id's first 8>@demo.preflight.local instead, with a password of its own.
 */
async function seedDemoOwner(base: string, adminToken: string, orgId: string, known: LocalState['demoOwner']): Promise<NonNullable<LocalState['demoOwner']>> {
  if (known?.orgId === orgId) return known;
  let email = known?.email ?? DEMO_OWNER_EMAIL;
  let password = known?.password ?? randomBytes(12).toString('base64url');
  if (!(await acceptDemoInvitation(base, adminToken, orgId, email, password, known !== undefined))) {
    email = `owner-${orgId.slice(0, 8)}@demo.preflight.local`;
    password = randomBytes(12).toString('base64url');
    if (!(await acceptDemoInvitation(base, adminToken, orgId, email, password, false))) throw new Error(`${email} already has an account whose password is not known here`);
  }
  console.log(`• made ${email} the demo organisation's Owner in the console`);
  return { orgId, email, password };
}

async function main(): Promise<void> {
  await checkInfrastructure();
  await ensureDatabase();

  const state = loadState();
  let adminToken = process.env.ADMIN_TOKEN;
  if (!adminToken) {
    adminToken = state.adminToken ?? `adm_${randomBytes(24).toString('base64url')}`;
    state.adminToken = adminToken;
    saveState(state);
  }
  // The at-rest key rings of the webhook and integration services: one per database, kept in
  // it, so every checkout on this database agrees (scripts/lib/local-keys.ts). Rings this
  // checkout kept in .preflight/local.json before are adopted once, then dropped from it.
  const rings = await localKeyRings(env.DATABASE_URL, { webhook: state.webhookSecretKeys, integration: state.integrationSecretKeys });
  for (const note of rings.notes) console.log(`• key ring ${note}`);
  if (state.webhookSecretKeys || state.integrationSecretKeys) {
    delete state.webhookSecretKeys;
    delete state.integrationSecretKeys;
    saveState(state);
  }
  const webhookSecretKeys = process.env.WEBHOOK_SECRET_KEYS ?? rings.webhook;
  const integrationSecretKeys = process.env.INTEGRATION_SECRET_KEYS ?? rings.integration;

  // The service-to-service signing keys: one pair per service, generated once and kept the same
  // way (SERVICE_AUTH_PUBLIC_KEYS from the environment wins, with each SERVICE_AUTH_KEY_<NAME>).
  const names = SERVICES.map((s) => s.name);
  if (!state.serviceAuth || names.some((n) => !state.serviceAuth!.keys[n])) {
    state.serviceAuth = generateDeploymentKeys(names, 'local1');
    saveState(state);
  }
  const serviceAuth = process.env.SERVICE_AUTH_PUBLIC_KEYS
    ? { publicKeys: process.env.SERVICE_AUTH_PUBLIC_KEYS, keys: Object.fromEntries(names.map((n) => [n, process.env[`SERVICE_AUTH_KEY_${n.toUpperCase()}`] ?? ''])) }
    : state.serviceAuth;

  const ports = Object.fromEntries(SERVICES.map((s) => [s.name, Number(process.env[s.portVar] ?? s.defaultPort)])) as Record<ServiceName, number>;
  const shared: Record<string, string> = {
    ...env,
    ADMIN_TOKEN: adminToken,
    MIGRATE_ON_START: 'true',
    CAMPAIGN_URL: `http://127.0.0.1:${ports.campaign}`,
    ISSUE_URL: `http://127.0.0.1:${ports.issue}`,
    WEBHOOK_URL: `http://127.0.0.1:${ports.webhook}`,
    DELIVERY_URL: `http://127.0.0.1:${ports.delivery}`,
    INTEGRATION_URL: `http://127.0.0.1:${ports.integration}`,
    // The console: the gateway serves its pages (/console) and routes its members API to it; it
    // calls the gateway's admin API back as the signed-in member. Browsers reach it at the gateway.
    CONSOLE_URL: `http://127.0.0.1:${ports.console}`,
    GATEWAY_URL: `http://127.0.0.1:${ports.gateway}`,
    CONSOLE_PUBLIC_ORIGIN: process.env.CONSOLE_PUBLIC_ORIGIN ?? `http://127.0.0.1:${ports.gateway}`,
    // What the integration service shows trackers as their inbound hook URL, and links issues to: the gateway.
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${ports.gateway}`,
    ISSUE_LINK_TEMPLATE: process.env.ISSUE_LINK_TEMPLATE ?? `http://127.0.0.1:${ports.gateway}/console/issues/{issueId}`,
    // The service ports take only signed service tokens; on a laptop no other machine reaches them at all.
    BIND_HOST: process.env.BIND_HOST ?? '127.0.0.1',
    SERVICE_AUTH_PUBLIC_KEYS: serviceAuth.publicKeys,
    WEBHOOK_SECRET_KEYS: webhookSecretKeys,
    INTEGRATION_SECRET_KEYS: integrationSecretKeys,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? 'false',
    ...Object.fromEntries(SERVICES.map((s) => [s.portVar, String(ports[s.name])])),
  };

  const running: ServiceProcess[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    await Promise.all(running.map((svc) => svc.stop('SIGTERM')));
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  for (const svc of SERVICES) running.push(spawnService(svc.name, ports[svc.name], { ...shared, SERVICE_AUTH_KEY: serviceAuth.keys[svc.name] ?? '' }, printLine));
  for (const svc of running) {
    svc.child.once('exit', (code) => {
      if (!stopping) {
        console.error(`${svc.name} exited unexpectedly (code ${code}); stopping the system.`);
        void stopAll(1);
      }
    });
  }
  try {
    // Generous: a first start transforms every module cold (tsx) and a busy machine slows it;
    // a service that exits is reported at once anyway.
    await Promise.all(running.map((svc) => waitUntilReady(svc, 180_000)));
  } catch (err) {
    console.error((err as Error).message);
    await stopAll(1);
    return;
  }

  const base = `http://127.0.0.1:${ports.gateway}`;
  const demo = await seedDemo(base, adminToken, state);
  saveState({ ...state, demo });
  const owner = await seedDemoOwner(base, adminToken, demo.orgId, state.demoOwner).catch((err: Error) => {
    console.error(`✗ could not make the demo organisation's Owner in the console: ${err.message}`);
    return undefined;
  });
  if (owner) saveState({ ...state, demo, demoOwner: owner });

  console.log(`
Preflight is running.
  API gateway   ${base}   (public API ${base}/api/v1, admin API ${base}/admin/v1)
  Admin token   ${adminToken}${process.env.ADMIN_TOKEN ? '   (from ADMIN_TOKEN)' : '   (generated; set ADMIN_TOKEN to choose one)'}
  Demo API key  ${demo.key}   (scopes read, write, webhooks)
  Console       ${base}/console/
  Demo Owner    ${owner ? `${owner.email}   password ${owner.password}   (kept in .preflight/local.json)` : '(not created; see above)'}

Try:
  export KEY=${demo.key} CAMPAIGN=${demo.campaignId}
  curl -s ${base}/api/v1/me -H "Authorization: Bearer $KEY"
  curl -s ${base}/api/v1/campaigns -H "X-Api-Key: $KEY"
  curl -s "${base}/api/v1/campaigns/$CAMPAIGN/issues?pageSize=10" -H "X-Api-Key: $KEY"
  curl -s -X POST ${base}/api/v1/campaigns/$CAMPAIGN/issues -H "X-Api-Key: $KEY" -H 'Content-Type: application/json' \\
       -d '{"title":"Hero image is blurry","severity":"Medium","type":"Bug","pageUrl":"https://shop.example.com/"}'
  curl -s ${base}/admin/v1/organizations -H "Authorization: Bearer ${adminToken}"
  curl -s -X POST ${base}/admin/v1/organizations/${demo.orgId}/integrations -H "Authorization: Bearer ${adminToken}" -H 'Content-Type: application/json' \\
       -d '{"kind":"slack","name":"Launch channel","config":{},"credentials":{"webhookUrl":"https://hooks.slack.com/services/T000/B000/XXXX"}}'
  curl -s ${base}/api/v1/openapi.json

Press Ctrl-C to stop.
`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
