// `node tests/bench/lib/pause-probe.mjs [SECONDS] [NAME]`: how long this machine stands still by
// itself. A process that does nothing but wake on a 1 ms timer prints, after SECONDS (default
// 20), every gap between wake-ups above 6 ms as [ms since start, gap ms]. Run two at once on an
// otherwise idle machine:
//
//   node tests/bench/lib/pause-probe.mjs 20 A & node tests/bench/lib/pause-probe.mjs 20 B & wait
//
// Gaps that both see at the same moment were not either process's doing (neither allocates or
// computes anything): the whole machine was paused, by the hypervisor (the `steal` column of
// /proc/stat grows meanwhile) or the kernel. Such pauses land in every latency figure of the
// benchmarks, baselines included; docs/benchmarks.md records what this machine showed.
//
// `node tests/bench/lib/pause-probe.mjs stream`: runs until stopped and prints each gap as it
// happens, one `[epoch ms at its end, gap ms]` per line (tests/bench/lib/machine-pauses.ts reads
// it during a benchmark run).

/** Calls `onGap` with each gap between wake-ups over 6 ms (ms, one decimal); returns its timer. */
function watchGaps(onGap) {
  let last = performance.now();
  return setInterval(() => {
    const now = performance.now();
    if (now - last > 6) onGap(Number((now - last).toFixed(1)));
    last = now;
  }, 1);
}

if (process.argv[2] === 'stream') {
  watchGaps((ms) => process.stdout.write(`${JSON.stringify([Date.now(), ms])}\n`));
} else {
  const seconds = Number(process.argv[2] ?? 20);
  const name = process.argv[3] ?? String(process.pid);
  const started = Date.now();
  const gaps = [];
  const timer = watchGaps((ms) => gaps.push([Date.now() - started, ms]));
  setTimeout(() => {
    clearInterval(timer);
    console.log(`${name}: ${gaps.length} gaps over 6 ms in ${seconds} s: ${JSON.stringify(gaps)}`);
  }, seconds * 1000);
}
