import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@preflight/log';
import { createApp, createRegistry, Dependencies, serve, type RunningServer } from '../src/index.ts';

/** A dependency the test turns off and on. */
function switchable() {
  const dep = { up: true, calls: 0, check: async () => {} };
  dep.check = async () => {
    dep.calls += 1;
    if (!dep.up) throw new Error('connection refused');
  };
  return dep;
}

describe('Dependencies', () => {
  it('keeps a gated dependency ready through a blip shorter than the grace, and fails it after', async () => {
    let now = 1_000_000;
    const db = switchable();
    const deps = new Dependencies({ postgres: db.check }, { graceMs: 10_000, now: () => now });
    expect((await deps.readiness()).ready).toBe(true);
    db.up = false;
    const blip = await deps.readiness();
    expect(blip.ready).toBe(true);
    expect(blip.checks.postgres).toMatch(/^unavailable \(within the 10000 ms grace\): connection refused/);
    now += 9_999;
    expect((await deps.readiness()).ready).toBe(true);
    now += 1;
    const out = await deps.readiness();
    expect(out.ready).toBe(false);
    expect(out.checks.postgres).toMatch(/^unavailable \(down for 10000 ms\)/);
    // Back: ready at once, and a new outage starts its own grace.
    db.up = true;
    expect((await deps.readiness()).ready).toBe(true);
    db.up = false;
    now += 60_000;
    expect((await deps.readiness()).ready).toBe(true);
  });

  it('never fails readiness for a dependency the pod can serve without', async () => {
    let now = 0;
    const nats = switchable();
    nats.up = false;
    const deps = new Dependencies({ nats: { check: nats.check, gate: 'never' } }, { graceMs: 0, now: () => now });
    expect((await deps.readiness()).ready).toBe(true);
    now += 3_600_000;
    const out = await deps.readiness();
    expect(out.ready).toBe(true);
    expect(out.checks.nats).toMatch(/not needed to serve/);
    expect(deps.snapshot().nats).toMatchObject({ status: 'down', error: 'connection refused', gatesReadiness: false, since: new Date(0).toISOString() });
  });

  it('fails at once with a grace of 0', async () => {
    const db = switchable();
    db.up = false;
    expect((await new Dependencies({ postgres: db.check }, { graceMs: 0 }).readiness()).ready).toBe(false);
  });

  it('counts a check that hangs as failed, and shares one round among concurrent asks', async () => {
    let calls = 0;
    const deps = new Dependencies({ slow: () => ((calls += 1), new Promise<void>(() => {})) }, { graceMs: 0 });
    const [a, b] = await Promise.all([deps.readiness(), deps.readiness()]);
    expect(calls).toBe(1);
    expect(a.ready).toBe(false);
    expect(b.checks.slow).toMatch(/no answer within 2000 ms/);
  }, 10_000);
});

describe('probes', () => {
  const postgres = switchable();
  const nats = switchable();
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    const logger = createLogger('probe-test', { level: 'silent' });
    const { app } = createApp(
      {
        service: 'probe-test',
        logger,
        registry: createRegistry('probe-test'),
        readinessGraceMs: 300,
        readiness: { postgres: postgres.check, nats: { check: nats.check, gate: 'never' } },
      },
      () => {},
    );
    server = await serve({ app, port: 0, host: '127.0.0.1', logger, exitOnShutdown: false });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.shutdown());

  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`);
    return { status: res.status, body: (await (path === '/metrics' ? res.text() : res.json())) as never };
  };

  it('stays ready and live while NATS is down, reporting it in /healthz and dependency_up', async () => {
    nats.up = false;
    try {
      const ready = await get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'ready', checks: { postgres: 'ok', nats: expect.stringMatching(/^unavailable \(not needed to serve\)/) } });
      const health = await get('/healthz');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', dependencies: { postgres: { status: 'up', gatesReadiness: true }, nats: { status: 'down', gatesReadiness: false } } });
      const metrics = (await get('/metrics')).body as string;
      expect(metrics).toMatch(/^dependency_up\{dependency="nats",gates="none"[^}]*\} 0$/m);
      expect(metrics).toMatch(/^dependency_up\{dependency="postgres",gates="readiness"[^}]*\} 1$/m);
    } finally {
      nats.up = true;
    }
  });

  it('fails readiness only once Postgres has been down longer than the grace; liveness never', async () => {
    postgres.up = false;
    try {
      expect((await get('/readyz')).status).toBe(200);
      expect((await get('/healthz')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 350));
      const ready = await get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'unavailable', checks: { postgres: expect.stringMatching(/^unavailable \(down for \d+ ms\): connection refused/) } });
      const health = await get('/healthz');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', dependencies: { postgres: { status: 'down', error: 'connection refused' } } });
    } finally {
      postgres.up = true;
    }
    expect((await get('/readyz')).status).toBe(200);
  });
});
