/**
 * "Make the next created issue, then hold the answer": how the tests put a crash between a
 * tracker's answer and the service's commit of the link. `arm()` holds the next create; the
 * create calls `hold(issue)` after storing the issue and answers once it resolves (at
 * `release()` or when the fake closes).
 */
export interface HeldCreate<T> {
  arm(): { created: Promise<T>; release(): void };
  /** Called by the create after the issue exists; resolves when its answer may go. */
  hold(issue: T): Promise<void>;
  releaseAll(): void;
}

export function heldCreate<T>(): HeldCreate<T> {
  let armed: { created: (issue: T) => void; released: Promise<void> } | null = null;
  const releases = new Set<() => void>();
  return {
    arm() {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      releases.add(release);
      const created = new Promise<T>((resolve) => (armed = { created: resolve, released }));
      return { created, release: () => (releases.delete(release), release()) };
    },
    async hold(issue) {
      const current = armed;
      armed = null;
      if (!current) return;
      current.created(issue);
      await current.released;
    },
    releaseAll() {
      for (const release of releases) release();
      releases.clear();
    },
  };
}
