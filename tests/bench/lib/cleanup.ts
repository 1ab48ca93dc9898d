/**
 * What a benchmark started, undone in reverse order, once, within a deadline: on success, on
 * failure, on Ctrl-C/SIGTERM and when a run overruns. `add` registers an undo step as soon as
 * the thing exists, so a failure half-way still removes whatever was made.
 */
export interface Cleanup {
  add(step: () => Promise<unknown>): void;
  /** Runs the steps (once, however often called); settles when they are done or the deadline passed. */
  run(): Promise<void>;
}

export function createCleanup(label: string, deadlineMs: number): Cleanup {
  const steps: Array<() => Promise<unknown>> = [];
  let running: Promise<void> | undefined;
  return {
    add: (step) => void steps.push(step),
    run() {
      running ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            console.error(`[${label}] cleanup overran its deadline`);
            resolve();
          }, deadlineMs);
          timer.unref();
        });
        const undo = (async () => {
          while (steps.length) {
            const step = steps.pop()!;
            try {
              await step();
            } catch (err) {
              console.error(`[${label}] cleanup step failed: ${(err as Error).message}`);
            }
          }
        })();
        try {
          await Promise.race([undo, deadline]);
        } finally {
          clearTimeout(timer);
        }
      })();
      return running;
    },
  };
}
