import { openSecret, sealSecret, SecretUnavailableError, type KeyRing, type SealedSecret } from './secret-box.ts';

/**
 * Walking every sealed secret of a table, page by page in id order: to count what no key of
 * the ring opens (the services' `secrets_undecryptable` gauge) and, after a key rotation, to
 * seal again under the active key whatever an older key sealed (`main.ts reencrypt-secrets`).
 * The tables are the services'; they give the pages and the writes.
 */

/** One sealed value of a row: `kind` names the column group (`signing-secret`, `credentials`…). */
export interface SealedPart {
  kind: string;
  sealed: SealedSecret;
  /** The additional authenticated data it was sealed with. */
  context: string;
}

export interface SealedRow {
  id: string;
  parts: SealedPart[];
}

/** Rows with an id greater than `afterId` (all when undefined), in id order, at most `limit`. */
export type ReadSealedPage = (afterId: string | undefined, limit: number) => Promise<SealedRow[]>;

export interface Resealed {
  id: string;
  kind: string;
  /** What the row held when read: the write must apply only if it still does (compare-and-set). */
  was: SealedSecret;
  now: SealedSecret;
}

/** Writes the resealed parts whose row still holds `was`; answers how many it wrote. */
export type WriteResealed = (changes: Resealed[]) => Promise<number>;

/** A service's table of sealed secrets, as the walks see it. */
export interface SealedStore {
  read: ReadSealedPage;
  write: WriteResealed;
}

/** Seals every part of `store` under the ring's active key, a page at a time; `write: false` only reports. */
export const reencryptStore = (keys: KeyRing, store: SealedStore, opts: { write: boolean; batchSize?: number }): Promise<RingReport> =>
  walkSealed(keys, store.read, { batchSize: opts.batchSize ?? 200, ...(opts.write ? { write: store.write } : {}) });

/** A part no key of the ring opens. Never carries key material or plaintext. */
export interface Unopened {
  id: string;
  kind: string;
  keyId: string;
  why: string;
}

export interface RingReport {
  rows: number;
  /** Sealed parts seen, by kind. */
  parts: Record<string, number>;
  /** Parts seen, by the key id they were sealed with (before any rewrite). */
  byKey: Record<string, number>;
  /** Parts sealed again under the active key. */
  resealed: number;
  /** Parts changed by the service between read and write (sealed anew by it: left as they are). */
  changedMeanwhile: number;
  unopened: Unopened[];
}

export const emptyReport = (): RingReport => ({ rows: 0, parts: {}, byKey: {}, resealed: 0, changedMeanwhile: 0, unopened: [] });

/** Unopened parts counted by kind (the gauge's labels). */
export function unopenedByKind(report: RingReport): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(Object.keys(report.parts).map((k) => [k, 0]));
  for (const u of report.unopened) counts[u.kind] = (counts[u.kind] ?? 0) + 1;
  return counts;
}

/**
 * Reads every row once. Each part is opened (so a key with the right id and the wrong
 * material counts as unopened, which the key id alone would not show); with `write`, a part
 * sealed with another key than the ring's active one is sealed again under it, one page per
 * write. Idempotent: a second run finds everything under the active key and writes nothing.
 */
export async function walkSealed(
  ring: KeyRing,
  read: ReadSealedPage,
  opts: { batchSize?: number; write?: WriteResealed; onPage?: (report: RingReport) => void } = {},
): Promise<RingReport> {
  const batchSize = opts.batchSize ?? 200;
  const report = emptyReport();
  let after: string | undefined;
  for (;;) {
    const page = await read(after, batchSize);
    if (page.length === 0) break;
    const changes: Resealed[] = [];
    for (const row of page) {
      report.rows += 1;
      for (const part of row.parts) {
        report.parts[part.kind] = (report.parts[part.kind] ?? 0) + 1;
        report.byKey[part.sealed.keyId] = (report.byKey[part.sealed.keyId] ?? 0) + 1;
        let plaintext: string;
        try {
          plaintext = openSecret(ring, part.sealed, part.context);
        } catch (err) {
          if (!(err instanceof SecretUnavailableError)) throw err;
          report.unopened.push({ id: row.id, kind: part.kind, keyId: part.sealed.keyId, why: err.message });
          continue;
        }
        if (opts.write && part.sealed.keyId !== ring.primaryId) changes.push({ id: row.id, kind: part.kind, was: part.sealed, now: sealSecret(ring, plaintext, part.context) });
      }
    }
    if (opts.write && changes.length > 0) {
      const written = await opts.write(changes);
      report.resealed += written;
      report.changedMeanwhile += changes.length - written;
    }
    opts.onPage?.(report);
    after = page[page.length - 1]!.id;
    if (page.length < batchSize) break;
  }
  return report;
}

/** The part of a service's logger the watch writes to (pino's shape). */
export interface RingLogger {
  error(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
}

/**
 * Walks the table every `intervalMs` (and once at start) in the background and keeps the last
 * report: what a service's gauge shows. A walk that finds parts no key opens logs an error with
 * a sample of them (`idField` names the row id); a failed walk (the database away) keeps the
 * previous report, is logged as a warning and tried at the next tick.
 */
export class RingWatch {
  #last: RingReport | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<RingReport | undefined> | undefined;

  constructor(
    private readonly walk: () => Promise<RingReport>,
    private readonly log: { logger: RingLogger; what: string; idField: string },
  ) {}

  private onReport(report: RingReport): void {
    if (report.unopened.length === 0) return;
    const sample = report.unopened.slice(0, 20).map(({ id, kind, keyId }) => ({ [this.log.idField]: id, kind, keyId }));
    this.log.logger.error({ undecryptable: report.unopened.length, sample }, `${this.log.what} no configured key opens: what needs them waits (docs/operations.md, "PreflightSecretsUndecryptable")`);
  }

  private onError(err: unknown): void {
    this.log.logger.warn({ err: (err as Error).message }, `checking the stored ${this.log.what} against the key ring failed; tried again later`);
  }

  /** The last report's unopened parts per kind, 0 for each of `kinds` (a gauge's samples; all 0 before the first walk). */
  counts(kinds: readonly string[]): Record<string, number> {
    const counts = this.#last ? unopenedByKind(this.#last) : {};
    return Object.fromEntries(kinds.map((k) => [k, counts[k] ?? 0]));
  }

  get last(): RingReport | undefined {
    return this.#last;
  }

  /** One walk now (joined when one is already running); answers its report, undefined when it failed. */
  check(): Promise<RingReport | undefined> {
    this.#running ??= this.walk()
      .then((report) => {
        this.#last = report;
        this.onReport(report);
        return report;
      })
      .catch((err: unknown) => {
        this.onError(err);
        return undefined;
      })
      .finally(() => (this.#running = undefined));
    return this.#running;
  }

  start(intervalMs: number): this {
    void this.check();
    if (intervalMs > 0) {
      this.#timer = setInterval(() => void this.check(), intervalMs);
      this.#timer.unref();
    }
    return this;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}

/**
 * What `reencrypt-secrets` prints: the counts, how many parts are still under a key other than
 * the active one (0 before an old key may be removed), and every part no key opens, by row id.
 */
export function reencryptionSummary(ring: KeyRing, report: RingReport, wrote: boolean) {
  const notActive = Object.entries(report.byKey).reduce((n, [keyId, count]) => (keyId === ring.primaryId ? n : n + count), 0);
  return {
    activeKeyId: ring.primaryId,
    rows: report.rows,
    parts: report.parts,
    sealedWithKeyBefore: report.byKey,
    resealed: report.resealed,
    changedMeanwhile: report.changedMeanwhile,
    // Read again on the next run: a part changed meanwhile was sealed by a service, with its active key.
    notUnderActiveKey: wrote ? notActive - report.resealed - report.changedMeanwhile : notActive,
    undecryptable: report.unopened.map(({ id, kind, keyId }) => ({ id, kind, keyId })),
  };
}

/**
 * The body of a service's `main.ts reencrypt-secrets [--check]` (docs/operations.md, "Rotating
 * the at-rest keys"): walks the service's table (writing, unless `--check`), prints the summary
 * as one JSON line, and answers the exit code: 1 when some secret no configured key opens.
 */
export async function reencryptCommand(opts: {
  service: string;
  ring: KeyRing;
  args: readonly string[];
  read: ReadSealedPage;
  write: WriteResealed;
  print?: (line: string) => void;
}): Promise<number> {
  const write = !opts.args.includes('--check');
  const report = await walkSealed(opts.ring, opts.read, write ? { write: opts.write } : {});
  const summary = reencryptionSummary(opts.ring, report, write);
  (opts.print ?? ((line) => process.stdout.write(`${line}\n`)))(JSON.stringify({ service: opts.service, write, ...summary }));
  return summary.undecryptable.length > 0 ? 1 : 0;
}
