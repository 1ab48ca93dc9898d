import { lookup } from 'node:dns/promises';
import { assessHost, isIpLiteral, normaliseHost } from '@preflight/net';
import type { Deadline } from './deadlines.ts';

/** Where one attempt connects: the address that was checked, and nothing else. */
export type Target =
  | { ok: true; hostname: string; address: string; family: 4 | 6 }
  | { ok: false; refused: boolean; reason: string };

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * Resolves the URL's host (all addresses), applies the public-address rule to every one of
 * them unless private targets are allowed, and picks the address to connect to. The caller
 * pins the connection to it, so a DNS answer that changes between this check and the
 * connection (rebinding) cannot redirect the request.
 */
export async function resolveTarget(url: URL, opts: { allowPrivate: boolean; resolve?: Resolver | undefined; deadline: Deadline }): Promise<Target> {
  if (url.username || url.password) return { ok: false, refused: true, reason: 'credentials in the URL are not allowed' };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, refused: true, reason: `unsupported scheme ${url.protocol}` };
  const hostname = normaliseHost(url.hostname);
  let addresses: Array<{ address: string; family: number }>;
  if (isIpLiteral(hostname)) {
    addresses = [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await untilDeadline((opts.resolve ?? systemResolver)(hostname), opts.deadline);
    } catch (err) {
      if (opts.deadline.expired) throw err;
      return { ok: false, refused: false, reason: `could not resolve '${hostname}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
    }
  }
  if (!opts.allowPrivate) {
    const verdict = assessHost(hostname, addresses.map((a) => a.address));
    if (!verdict.allowed) return { ok: false, refused: true, reason: `refused: ${verdict.reason}` };
  }
  const first = addresses[0];
  if (!first) return { ok: false, refused: false, reason: `'${hostname}' resolves to no address` };
  return { ok: true, hostname, address: first.address, family: first.family === 6 ? 6 : 4 };
}

function untilDeadline<T>(promise: Promise<T>, deadline: Deadline): Promise<T> {
  if (deadline.expired) return Promise.reject(new Error('attempt timed out'));
  return new Promise<T>((resolve, reject) => {
    const onExpire = () => reject(new Error('attempt timed out'));
    deadline.onExpire = onExpire;
    const done = () => {
      if (deadline.onExpire === onExpire) deadline.onExpire = undefined;
    };
    promise.then(
      (v) => {
        done();
        resolve(v);
      },
      (e: unknown) => {
        done();
        reject(e);
      },
    );
  });
}

/** Parsed URLs and verdicts kept for IP-literal URLs at most; beyond, the memory starts afresh. */
const LITERALS_KEPT = 10_000;

/**
 * Where each attempt connects, from the URL its delivery row holds. A URL whose host is an IP
 * literal has nothing to resolve and a verdict that cannot change, so its parsed URL and target
 * are kept (parsing the URL and assessing the address were a measurable share of an attempt's
 * CPU at saturation); a host name is resolved and assessed again at every attempt (public
 * addresses only, no rebinding: public-api-v1.md 6.5).
 */
export class Targets {
  private readonly literals = new Map<string, { url: URL; target: Target }>();

  constructor(private readonly opts: { allowPrivate: boolean; resolve?: Resolver | undefined }) {}

  /** The parsed URL and target of an IP-literal URL seen before, without a promise; undefined otherwise (ask `of`). */
  kept(rawUrl: string): { url: URL; target: Target } | undefined {
    return this.literals.get(rawUrl);
  }

  async of(rawUrl: string, deadline: Deadline): Promise<{ url: URL; target: Target }> {
    const kept = this.kept(rawUrl);
    if (kept) return kept;
    const url = new URL(rawUrl);
    const target = await resolveTarget(url, { ...this.opts, deadline });
    if (isIpLiteral(normaliseHost(url.hostname))) {
      if (this.literals.size >= LITERALS_KEPT) this.literals.clear();
      this.literals.set(rawUrl, { url, target });
    }
    return { url, target };
  }
}
