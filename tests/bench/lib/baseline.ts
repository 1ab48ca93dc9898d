import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BaselineConfig } from '../baseline-server.ts';

export interface BaselineServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('../baseline-server.ts', import.meta.url));

/** Forks the bare express baseline (same node, same tsx loader as the services) and waits for its port. */
export async function startBaseline(cfg: BaselineConfig, timeoutMs = 30_000): Promise<BaselineServer> {
  const child = fork(SCRIPT, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`baseline server did not start within ${timeoutMs} ms`)), timeoutMs);
      child.once('exit', (code) => reject(new Error(`baseline server exited with code ${code}`)));
      child.once('message', (m: { port: number }) => {
        clearTimeout(timer);
        resolve(m.port);
      });
      child.send(cfg);
    });
    return { url: `http://127.0.0.1:${port}`, child, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
