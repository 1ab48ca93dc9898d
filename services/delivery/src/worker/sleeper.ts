/** A wait that `wake()` cuts short (a wake with nobody waiting makes the next wait return at once). */
export class Sleeper {
  #timer: NodeJS.Timeout | undefined;
  #resolve: (() => void) | undefined;
  #pending = false;

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
