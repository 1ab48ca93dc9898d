/** A sleep that `stop()` cuts short. */
export class Sleeper {
  #timer: NodeJS.Timeout | undefined;
  #resolve: (() => void) | undefined;
  #pending = false;

  /** Waits `ms`, or less if `wake()` is called meanwhile (or was called since the last wait). */
  wait(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.#resolve = resolve;
      this.#timer = setTimeout(() => this.wake(), ms);
    }).then(() => {
      this.#pending = false;
    });
  }

  wake(): void {
    clearTimeout(this.#timer);
    const resolve = this.#resolve;
    this.#resolve = undefined;
    if (resolve) resolve();
    else this.#pending = true;
  }
}
