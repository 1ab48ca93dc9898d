import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, openSync, closeSync, readdirSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
// The file itself rather than the package: the package's index fixes TEST_DATABASE_URL & co. when
// it is first loaded, and run.ts points those at this suite's own servers only once they run.
import { freePort } from '../../libs/testing/src/ports.ts';

/**
 * The chaos suite's own Postgres, Redis and NATS, on ports of their own, so they can be killed
 * without touching the shared servers on 5432/6379/4222. Each `stop` is safe to call twice and
 * after a failed start.
 */

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isRoot = () => process.getuid?.() === 0;

export interface Dependency {
  name: string;
  url: string;
  /** kill -9 (or an immediate stop) — the fault. */
  kill(): Promise<void>;
  /** Starts it again with the same data; resolves once it accepts clients. */
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  stop(): Promise<void>;
  /** Where its log is, for failure messages. */
  logFile: string;
}

export interface PostgresDependency extends Dependency {
  /** `pg_ctl stop -m immediate` then `pg_ctl start`: the fault for Postgres (crash recovery on start). */
  restartImmediate(): Promise<void>;
  version: string;
}

/** Resolves once something on `port` answers with a first chunk for which `ok` holds (or at once when `ok` is absent and the connection opens). */
async function waitForPort(port: number, timeoutMs: number, probe?: { send?: string; ok: (first: string) => boolean }): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answered = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect({ host: '127.0.0.1', port });
      const done = (v: boolean) => {
        socket.destroy();
        resolve(v);
      };
      socket.setTimeout(1_000, () => done(false));
      socket.once('error', () => done(false));
      socket.once('connect', () => {
        if (!probe) return done(true);
        if (probe.send) socket.write(probe.send);
      });
      socket.once('data', (chunk: Buffer) => done(probe ? probe.ok(chunk.toString('utf8')) : true));
    });
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`nothing answered on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** A child server process writing to `logFile`, restartable with the same arguments. */
function childServer(name: string, bin: string, args: string[], logFile: string) {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  return {
    spawn() {
      const fd = openSync(logFile, 'a');
      try {
        child = spawn(bin, args, { stdio: ['ignore', fd, fd] });
      } finally {
        closeSync(fd);
      }
      const c = child;
      exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
      c.once('error', (err) => appendFileSync(logFile, `[chaos] ${name} failed to start: ${err.message}\n`));
    },
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    get pid() {
      return child?.pid;
    },
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export async function startRedis(dir: string): Promise<Dependency> {
  const port = await freePort();
  const logFile = path.join(dir, 'redis.log');
  const server = childServer('redis', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir], logFile);
  const start = async () => {
    server.spawn();
    try {
      await waitForPort(port, 20_000, { send: 'PING\r\n', ok: (s) => s.startsWith('+PONG') });
    } catch (err) {
      throw new Error(`redis-server did not start: ${(err as Error).message}\n${tail(logFile)}`, { cause: err });
    }
  };
  await start();
  return { name: 'redis', url: `redis://127.0.0.1:${port}`, logFile, start, kill: () => server.kill('SIGKILL'), stop: () => server.kill('SIGKILL') };
}

export async function startNats(dir: string, bin = process.env.CHAOS_NATS_SERVER ?? '/usr/sbin/nats-server'): Promise<Dependency> {
  const port = await freePort();
  const storeDir = path.join(dir, 'jetstream');
  const logFile = path.join(dir, 'nats.log');
  // The JetStream store on disk: a restarted server keeps the stream and its consumers.
  const server = childServer('nats', bin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], logFile);
  const start = async () => {
    server.spawn();
    try {
      // The INFO line comes once the server accepts clients; JetStream is up by then (it is set up before the client listener).
      await waitForPort(port, 30_000, { ok: (s) => s.startsWith('INFO') });
    } catch (err) {
      throw new Error(`nats-server did not start: ${(err as Error).message}\n${tail(logFile)}`, { cause: err });
    }
  };
  await start();
  return { name: 'nats', url: `nats://127.0.0.1:${port}`, logFile, start, kill: () => server.kill('SIGKILL'), stop: () => server.kill('SIGKILL') };
}

/** The newest PostgreSQL whose server binaries are installed (Debian layout), or CHAOS_PG_BIN. */
export function postgresBinDir(): { bin: string; version: string } {
  if (process.env.CHAOS_PG_BIN) return { bin: process.env.CHAOS_PG_BIN, version: path.basename(path.dirname(process.env.CHAOS_PG_BIN)) };
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error(`no PostgreSQL server binaries under ${root} (set CHAOS_PG_BIN to the directory holding initdb and pg_ctl)`);
  return { bin: path.join(root, versions[0], 'bin'), version: versions[0] };
}

/**
 * A throwaway cluster: `initdb` into a temporary directory (as the `postgres` user when this
 * runs as root: Postgres refuses to run as root), trust authentication, listening on loopback
 * on a free port with its socket in its own directory, started and stopped with `pg_ctl`.
 */
export async function startPostgres(): Promise<PostgresDependency> {
  const { bin, version } = postgresBinDir();
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'preflight-chaos-pg-'));
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');
  let uid: number | undefined;
  if (isRoot()) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    uid = Number(stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const asOwner = (cmd: string, args: string[], timeout = 90_000) =>
    uid === undefined ? run(path.join(bin, cmd), args, { timeout }) : run('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], { timeout });
  const pgCtl = (args: string[]) => asOwner('pg_ctl', ['-D', dataDir, ...args]);
  let removed = false;

  await asOwner('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const conf = [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${dir}'`,
    'max_connections = 200',
    'shared_buffers = 64MB',
    // A crash (immediate stop) then recovers from the WAL like a real one: fsync stays on.
    'logging_collector = off',
  ].join('\n');
  // Appending as root keeps the file's owner (postgres).
  appendFileSync(path.join(dataDir, 'postgresql.conf'), `\n${conf}\n`);

  const start = async () => {
    try {
      await pgCtl(['-l', logFile, '-w', '-t', '60', 'start']);
    } catch (err) {
      throw new Error(`pg_ctl start failed: ${(err as Error).message}\n${tail(logFile)}`, { cause: err });
    }
  };
  const stopImmediate = async () => {
    await pgCtl(['-m', 'immediate', '-w', '-t', '60', 'stop']);
  };
  /** The postmaster's pid from its pid file, for a last-resort kill. */
  const postmasterPid = (): number | undefined => {
    try {
      return Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  const stop = async () => {
    if (removed) return;
    removed = true;
    try {
      if (existsSync(path.join(dataDir, 'postmaster.pid'))) await stopImmediate();
    } catch {
      const pid = postmasterPid();
      if (pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
        await sleep(500);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await start();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    name: 'postgres',
    version,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    logFile,
    start,
    kill: stopImmediate,
    restartImmediate: async () => {
      await stopImmediate();
      await start();
    },
    stop,
  };
}
