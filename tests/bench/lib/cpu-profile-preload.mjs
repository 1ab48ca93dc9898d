// Preloaded into a service with NODE_OPTIONS="--import=<this file>" when the harness runs with
// --cpu-prof=DIR (Node 20 does not accept --cpu-prof itself in NODE_OPTIONS, and the services
// are spawned by scripts/lib/services.ts with fixed arguments). Profiles the whole process with
// the inspector and writes DIR/<service>-<pid>.cpuprofile when it exits (the services exit
// through process.exit after a graceful SIGTERM shutdown); open it in Chrome DevTools or
// summarise it with `tsx bench/lib/profile-summary.ts FILE`.
//
// SIGUSR2 cuts the profile: what was profiled so far goes to DIR/<service>-<pid>-<n>.cpuprofile
// (n = 1, 2, …) and profiling starts afresh, so a harness can profile one phase alone (the
// delivery bench cuts at the start and the end of its sustained window).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.enable');
  session.post('Profiler.start');
  // services/<name>/src/main.ts (from source) or services/<name>/dist/main.js (the bundle).
  const name = process.argv.map((a) => /services\/([^/]+)\/(?:src|dist)\/main\.[jt]s$/.exec(a)?.[1]).find(Boolean) ?? 'node';
  let cuts = 0;
  process.on('SIGUSR2', () => {
    const n = ++cuts;
    session.post('Profiler.stop', (err, result) => {
      if (!err && result) writeFileSync(path.join(dir, `${name}-${process.pid}-${n}.cpuprofile`), JSON.stringify(result.profile));
      session.post('Profiler.start');
    });
  });
  process.once('exit', () => {
    // A same-thread inspector session answers synchronously, so this completes inside 'exit'.
    session.post('Profiler.stop', (err, result) => {
      if (!err && result) writeFileSync(path.join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
