import type { AttemptCompletion } from '../storage/deliveries.ts';

/**
 * How a delivery the fan-out started before its row was stored is recorded: the scheduler's
 * side of the contract (the fan-out keeps one per started delivery).
 */
export interface EarlyRecord {
  /** Settles true once the delivery's row is stored (leased to this replica), false if it never will be. */
  readonly stored: Promise<boolean>;
  /**
   * Its attempt is over. `recorded`: the fan-out's transaction wrote it (and moved the delivery
   * on, a final outcome reported first), and committed. `record`: the row was stored leased
   * before the attempt ended, so the scheduler records it as it records a claimed one.
   * `unstored`: the row never will be: only the attempt is logged.
   */
  finished(completion: AttemptCompletion): Promise<'recorded' | 'record' | 'unstored'>;
  /** No attempt was made (the delivery is given back once its row is stored). */
  notAttempted(): void;
}

type How = Awaited<ReturnType<EarlyRecord['finished']>>;

/**
 * One started delivery. `running` until its attempt ends (`finished`: the completion waits for
 * a transaction) or a transaction stores its row leased first (`leased`: the completion, when
 * it comes, is the scheduler's to record); a transaction that takes a finished one writes its
 * attempt (`writing`), again if it rolls back and the event runs in another.
 */
export class EarlyDelivery implements EarlyRecord {
  state: 'running' | 'finished' | 'leased' | 'writing' = 'running';
  completion: AttemptCompletion | undefined;
  answer: ((how: How) => void) | undefined;
  readonly over: Promise<void>;
  #over!: () => void;

  constructor(private readonly event: EarlyEvent) {
    this.over = new Promise<void>((resolve) => (this.#over = resolve));
  }

  get stored(): Promise<boolean> {
    return this.event.stored;
  }

  finished(completion: AttemptCompletion): Promise<How> {
    this.#over();
    if (this.event.settled === false) return Promise.resolve('unstored');
    if (this.state === 'leased') return this.event.stored.then((ok) => (ok ? 'record' : 'unstored'));
    this.state = 'finished';
    this.completion = completion;
    return new Promise<How>((resolve) => (this.answer = resolve));
  }

  notAttempted(): void {
    this.#over();
  }

  /** The transaction's part: what it stores for this delivery (its attempt, or its row leased). */
  take(): 'write' | 'lease' {
    if (this.state === 'finished' || this.state === 'writing') {
      this.state = 'writing';
      return 'write';
    }
    this.state = 'leased';
    return 'lease';
  }
}

/** The deliveries of one event started before its transaction, and how that transaction ended. */
export class EarlyEvent {
  readonly deliveries: EarlyDelivery[];
  readonly stored: Promise<boolean>;
  /** true: committed; false: let go without being stored; undefined: not yet either. */
  settled: boolean | undefined;
  #stored!: (ok: boolean) => void;

  constructor(count: number) {
    this.stored = new Promise<boolean>((resolve) => (this.#stored = resolve));
    this.deliveries = Array.from({ length: count }, () => new EarlyDelivery(this));
  }

  /** Resolves once the attempts of the deliveries taken are over, or after `ms`, whichever first. */
  async attemptsOver(taken: readonly boolean[], ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.deliveries.filter((_, i) => taken[i]).map((d) => d.over)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
    ]);
    clearTimeout(timer);
  }

  /** Its transaction committed: attempts it wrote are recorded, rows it leased are stored. */
  committed(): void {
    if (this.settled !== undefined) return;
    this.settled = true;
    this.#stored(true);
    for (const d of this.deliveries) if (d.state === 'writing') d.answer?.('recorded');
  }

  /** Settled without a commit (nak'ed, a duplicate): nothing of it is stored, attempts are only logged. */
  letGo(): void {
    if (this.settled !== undefined) return;
    this.settled = false;
    this.#stored(false);
    for (const d of this.deliveries) if (d.state === 'finished' || d.state === 'writing') d.answer?.('unstored');
  }
}
