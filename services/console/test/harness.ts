import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createDatabase, type Database } from '@preflight/db';
import type { Caller, MemberRole } from '@preflight/http';
import { createLogger } from '@preflight/log';
import { TEST_DATABASE_URL, TEST_REDIS_URL, dropSchemas, isolatedName, serviceAuthConfig, serviceAuthHeaders, serviceCall, type Reply } from '@preflight/testing';
import { hashPassword } from '../src/auth/passwords.ts';
import { startConsoleService, type RunningConsoleService } from '../src/app.ts';
import { loadConsoleConfig } from '../src/config.ts';
import { insertMembership, rememberOrgName } from '../src/storage/memberships.ts';
import type { ConsoleDatabase } from '../src/storage/schema.ts';
import { insertUser } from '../src/storage/users.ts';

export type { Reply } from '@preflight/testing';

/** The browser-facing origin the test console believes in (CONSOLE_PUBLIC_ORIGIN). */
export const ORIGIN = 'http://127.0.0.1:8080';

export const asOperator: Caller = { kind: 'admin' };
export const asMember = (orgId: string, userId: string, role: MemberRole): Caller => ({ kind: 'member', orgId, userId, role });

export interface Harness {
  base: string;
  service: RunningConsoleService;
  db: Database<ConsoleDatabase>['db'];
  /** REDIS_KEY_PREFIX of this console: its sessions are `<prefix>console:session:<sha256(id)>`. */
  redisPrefix: string;
  /** The members API, as the gateway forwards it for `as` (the operator or a member). */
  call(method: string, path: string, opts?: { as?: Caller; body?: unknown }): Promise<Reply>;
  /** A browser reaching /console through the gateway: its own cookie jar, forms, redirects not followed. */
  browser(): Browser;
  /** A user with a password, member of `orgId` as `role` (straight into the tables). */
  addUser(opts: { orgId: string; role: MemberRole; email?: string; password?: string; name?: string }): Promise<{ id: string; email: string; password: string }>;
  /** Reads one metric's value from the service's registry (summed over labels matching `labels`). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  close(): Promise<void>;
}

export interface PageReply {
  status: number;
  headers: Headers;
  text: string;
  /** Where a redirect points (Location), if it is one. */
  location: string | null;
}

export interface Browser {
  cookies: Map<string, string>;
  get(path: string, headers?: Record<string, string>): Promise<PageReply>;
  /** A form post with the `_csrf` of the page last seen (unless `csrfField: false`); `origin` overrides the Origin header (null: none). */
  post(path: string, form: Record<string, string>, opts?: { origin?: string | null; headers?: Record<string, string>; csrfField?: boolean }): Promise<PageReply>;
  /** The CSRF token in the last page shown (the `_csrf` field). */
  csrf(): string;
  /** Signs in with e-mail and password (gets the sign-in page first); answers the POST's reply. */
  signIn(email: string, password: string): Promise<PageReply>;
}

const CSRF_FIELD = /name="_csrf" value="([^"]+)"/;

function makeBrowser(base: string): Browser {
  const cookies = new Map<string, string>();
  let lastCsrf = '';
  const send = async (method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<PageReply> => {
    const res = await fetch(`${base}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        // What the gateway's pass-through sends: its own token to the console, without a caller.
        ...(await serviceAuthHeaders('console')),
        ...(cookies.size ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    const text = await res.text();
    const token = CSRF_FIELD.exec(text)?.[1];
    if (token) lastCsrf = token;
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  };
  const browser: Browser = {
    cookies,
    get: (path, headers = {}) => send('GET', path, undefined, headers),
    post: (path, form, opts = {}) => {
      const origin = opts.origin === undefined ? ORIGIN : opts.origin;
      const body = new URLSearchParams({ ...(opts.csrfField === false ? {} : { _csrf: lastCsrf }), ...form }).toString();
      return send('POST', path, body, { ...(origin !== null ? { origin } : {}), ...(opts.headers ?? {}) });
    },
    csrf: () => lastCsrf,
    async signIn(email, password) {
      await browser.get('/console/sign-in');
      return browser.post('/console/sign-in', { email, password });
    },
  };
  return browser;
}

/** The console on a loopback port in a schema and Redis prefix of its own; GATEWAY_URL as given (nothing listens by default). */
export async function startHarness(overrides: Record<string, string> = {}): Promise<Harness> {
  const schema = isolatedName('console');
  const redisPrefix = `${isolatedName('console_redis')}:`;
  const config = loadConsoleConfig(
    {
      CONSOLE_PORT: '0',
      DATABASE_URL: TEST_DATABASE_URL,
      DB_SCHEMA: schema,
      DB_POOL_MAX: '4',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: redisPrefix,
      // A port nothing listens on: pages that call the gateway get the 503 page unless a test gives one.
      GATEWAY_URL: 'http://127.0.0.1:9',
      CONSOLE_PUBLIC_ORIGIN: ORIGIN,
      ...overrides,
    },
    false,
  );
  const service = await startConsoleService({
    config: { ...config, ...serviceAuthConfig('console') },
    logger: createLogger('console-test', { level: 'silent' }),
    host: '127.0.0.1',
    exitOnShutdown: false,
  }).catch(async (err) => {
    await dropSchemas([schema]);
    throw err;
  });
  const reader = createDatabase<ConsoleDatabase>({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
  const base = `http://127.0.0.1:${service.port}`;
  let users = 0;
  return {
    base,
    service,
    db: reader.db,
    redisPrefix,
    call: serviceCall('console', () => base),
    browser: () => makeBrowser(base),
    async addUser({ orgId, role, email, password = 'correct horse battery staple', name = 'Test User' }) {
      users += 1;
      const address = email ?? `user${users}.${randomUUID().slice(0, 8)}@example.com`;
      const user = await insertUser(reader.db, { id: randomUUID(), email: address, name, passwordHash: await hashPassword(password) });
      await insertMembership(reader.db, { userId: user.id, orgId, role });
      return { id: user.id, email: user.email, password };
    },
    async metric(name, labels = {}) {
      const metric = (await service.registry.getMetricsAsJSON()).find((m) => m.name === name);
      return (metric?.values ?? [])
        .filter((v) => Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want))
        .reduce((sum, v) => sum + Number(v.value), 0);
    },
    async close() {
      await service.shutdown('test finished');
      await reader.close();
      await dropSchemas([schema]);
    },
  };
}

/** A fresh organisation id with a name the console knows. */
export async function newOrg(h: Harness, name = 'Acme Testing'): Promise<string> {
  const orgId = randomUUID();
  await rememberOrgName(h.db, orgId, name);
  return orgId;
}

/** Problem bodies carry the same fields whatever went wrong. */
export function expectProblem(reply: Reply, status: number): any {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reply.body.status).toBe(status);
  return reply.body;
}
