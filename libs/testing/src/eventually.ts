/**
 * Polls `probe` until it returns without throwing, or the deadline passes (then rethrows the
 * last failure). The way to wait for asynchronous effects without sleeping for a guess.
 */
export async function eventually<T>(probe: () => Promise<T> | T, opts: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let lastError: unknown;
  for (;;) {
    try {
      return await probe();
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) throw lastError;
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}
