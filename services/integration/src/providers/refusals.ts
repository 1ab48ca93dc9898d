import { ProviderError } from './provider.ts';

/** Headers as a fetch Response or an SDK error carries them. */
export type HeaderSource = Headers | Record<string, string | string[] | number | undefined> | undefined;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, unknown>;
  const value = record[name] ?? record[name.toLowerCase()];
  if (Array.isArray(value)) return String(value[0]);
  return value === undefined ? undefined : String(value);
}

const MAX_RETRY_AFTER_MS = 60 * 60_000;

/** `Retry-After` (seconds or an HTTP date), or a reset header in epoch seconds; null when absent. */
export function retryAfterMs(headers: HeaderSource, now = Date.now()): number | null {
  const retryAfter = header(headers, 'retry-after');
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - now;
    if (Number.isFinite(ms)) return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
  }
  const reset = header(headers, 'x-ratelimit-reset');
  if (reset !== undefined && Number.isFinite(Number(reset))) return Math.min(Math.max(Number(reset) * 1000 - now, 0), MAX_RETRY_AFTER_MS);
  return null;
}

/**
 * The ProviderError for a refused HTTP call, by the rules of `ProviderErrorKind`: 429 (and a
 * 403 whose rate-limit budget is spent) waits, 401/403 is the credentials, 5xx and 408 are
 * retried, 3xx (redirects are never followed) and other 4xx are not.
 */
export function refusal(status: number, headers: HeaderSource, what: string): ProviderError {
  const text = `${what}: HTTP ${status}`;
  if (status === 429 || (status === 403 && header(headers, 'x-ratelimit-remaining') === '0')) {
    return new ProviderError('rate-limited', `${text} (rate limited)`, status, retryAfterMs(headers) ?? 60_000);
  }
  if (status === 401 || status === 403) return new ProviderError('credentials', `${text} (credentials refused)`, status);
  if (status >= 500 || status === 408) return new ProviderError('unavailable', text, status);
  if (status >= 300 && status < 400) return new ProviderError('rejected', `${text} (redirects are not followed)`, status);
  return new ProviderError('rejected', text, status);
}
