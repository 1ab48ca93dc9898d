import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every service process of the system, in start order, with the variables that place it. */
export const SERVICES = [
  { name: 'campaign', portVar: 'CAMPAIGN_PORT', defaultPort: 8081, schema: 'campaign' },
  { name: 'issue', portVar: 'ISSUE_PORT', defaultPort: 8082, schema: 'issue' },
  { name: 'webhook', portVar: 'WEBHOOK_PORT', defaultPort: 8083, schema: 'webhook' },
  { name: 'delivery', portVar: 'DELIVERY_PORT', defaultPort: 8084, schema: 'delivery' },
  { name: 'integration', portVar: 'INTEGRATION_PORT', defaultPort: 8085, schema: 'integration' },
  { name: 'console', portVar: 'CONSOLE_PORT', defaultPort: 8086, schema: 'console' },
  { name: 'gateway', portVar: 'GATEWAY_PORT', defaultPort: 8080, schema: 'identity' },
] as const;

export type ServiceName = (typeof SERVICES)[number]['name'];

export interface ServiceProcess {
  name: ServiceName;
  url: string;
  child: ChildProcess;
  /** The last lines the process wrote, for failure messages. */
  recentOutput(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs one service as its own process: from its TypeScript source (`node --import tsx`), the
 * way `npm start` and the end-to-end tests both do, or with `built` from the bundle its image
 * runs (services/<name>/dist/main.js, `node scripts/build-service.mjs`, with the image's
 * NODE_ENV and the NODE_OPTIONS its chart sets, else the image's), as the benchmarks do.
 * `onLine` sees every output line.
 */
export function spawnService(
  name: ServiceName,
  port: number,
  env: Record<string, string>,
  onLine?: (name: ServiceName, line: string) => void,
  opts: { built?: boolean } = {},
): ServiceProcess {
  const args = opts.built ? [`services/${name}/dist/main.js`] : ['--import', 'tsx', `services/${name}/src/main.ts`];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...(opts.built ? { NODE_ENV: 'production', NODE_OPTIONS: deployedNodeOptions(name) } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const recent: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on('line', (line) => {
      recent.push(line);
      if (recent.length > 40) recent.shift();
      onLine?.(name, line);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    child,
    recentOutput: () => recent.join('\n'),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The image's NODE_OPTIONS (Dockerfile), unless the service's chart replaces it in `extraEnv` (a heap limit). */
function deployedNodeOptions(name: ServiceName): string {
  const values = parse(readFileSync(`${REPO_ROOT}charts/${name}/values.yaml`, 'utf8')) as { extraEnv?: Array<{ name: string; value?: string }> };
  return values.extraEnv?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '--enable-source-maps';
}

/** Resolves once `GET {url}/readyz` answers 200; rejects with the process's output otherwise. */
export async function waitUntilReady(svc: ServiceProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (svc.child.exitCode !== null) {
      throw new Error(`${svc.name} exited with code ${svc.child.exitCode} before becoming ready:\n${svc.recentOutput()}`);
    }
    try {
      const res = await fetch(`${svc.url}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${svc.name} was not ready within ${timeoutMs} ms:\n${svc.recentOutput()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
