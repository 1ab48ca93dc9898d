import { lookup } from 'node:dns/promises';
import { AppError } from '@preflight/http';
import { assessHost, isIpLiteral, isLocalhostName, normaliseHost } from './target-address.ts';

/** Every address a host name resolves to (A and AAAA), as the system resolver answers. */
export type HostResolver = (host: string) => Promise<string[]>;

const LOOKUP_TIMEOUT_MS = 5_000;
/** Resolver answers meaning "this name has no address", as opposed to "could not ask". */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

export const systemResolver: HostResolver = async (host) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`lookup of ${host} timed out`), { code: 'ETIMEOUT' })), LOOKUP_TIMEOUT_MS);
  });
  try {
    const addresses = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    return addresses.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
};

export interface TargetChecker {
  /** Messages for `errors.url` (empty when the URL is an acceptable delivery target). */
  check(url: string): Promise<string[]>;
}

/**
 * The creation-time rules on a webhook URL beyond the contract's "absolute http(s)": no
 * credentials in it, and (unless `allowPrivate`) a public destination: an IP literal must be
 * public, a name must not be localhost and every address it resolves to must be public
 * (target-address.ts, shared with the delivery service). A name with no address is a 422; a resolver that cannot be
 * asked (timeout, SERVFAIL) is a 503, since the same request may succeed a moment later.
 */
export function createTargetChecker(opts: { allowPrivate: boolean; resolve?: HostResolver }): TargetChecker {
  const resolve = opts.resolve ?? systemResolver;
  return {
    async check(text) {
      const url = new URL(text);
      if (url.username !== '' || url.password !== '') return ['Must not contain credentials (user:password@); the signature authenticates deliveries.'];
      if (opts.allowPrivate) return [];
      const host = normaliseHost(url.hostname);
      let resolved: string[] = [];
      if (!isIpLiteral(host) && !isLocalhostName(host)) {
        try {
          resolved = await resolve(host);
        } catch (err) {
          const code = (err as { code?: string }).code ?? '';
          if (NO_SUCH_NAME.has(code)) return [`The host '${host}' does not resolve to any address.`];
          throw new AppError('dependency_unavailable', `The host '${host}' could not be resolved just now (${code || 'lookup failed'}); try again.`);
        }
      }
      const verdict = assessHost(host, resolved);
      return verdict.allowed ? [] : [`Must be reachable over the public internet: ${verdict.reason}.`];
    },
  };
}
