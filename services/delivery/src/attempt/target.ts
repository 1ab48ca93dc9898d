import { lookup } from 'node:dns/promises';
import { assessHost, isIpLiteral, normaliseHost } from '@preflight/net';

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
export async function resolveTarget(url: URL, opts: { allowPrivate: boolean; resolve?: Resolver; signal: AbortSignal }): Promise<Target> {
  if (url.username || url.password) return { ok: false, refused: true, reason: 'credentials in the URL are not allowed' };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, refused: true, reason: `unsupported scheme ${url.protocol}` };
  const hostname = normaliseHost(url.hostname);
  let addresses: Array<{ address: string; family: number }>;
  if (isIpLiteral(hostname)) {
    addresses = [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await abortable((opts.resolve ?? systemResolver)(hostname), opts.signal);
    } catch (err) {
      if (opts.signal.aborted) throw err;
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

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
