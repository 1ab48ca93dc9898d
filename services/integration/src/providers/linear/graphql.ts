import { ProviderError, type SafeFetch } from '../provider.ts';
import { refusal, retryAfterMs } from '../refusals.ts';

/**
 * One GraphQL call to Linear over SafeFetch. @linear/sdk's own client posts with
 * `globalThis.fetch` and takes no fetch of ours, and its generated documents select whole
 * models, so the adapter sends small documents written against Linear's schema itself.
 * Linear reports most refusals as GraphQL errors with `extensions.code`, whatever the HTTP status.
 */

interface LinearGraphqlError {
  message?: string;
  extensions?: { code?: string; userPresentableMessage?: string };
}
interface LinearAnswer<T> {
  data?: T | null;
  errors?: LinearGraphqlError[];
}

export interface LinearCall {
  /** What the call is, for messages ("Linear issue create"). */
  what: string;
  query: string;
  variables: Record<string, unknown>;
}

export type LinearGraphql = <T>(call: LinearCall) => Promise<T>;

const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

/** Linear's reset header is epoch milliseconds (refusals.ts reads the seconds form other APIs use). */
function linearResetMs(headers: Headers): number | null {
  const reset = Number(headers.get('x-ratelimit-requests-reset'));
  return Number.isFinite(reset) && reset > 0 ? Math.max(reset - Date.now(), 0) : null;
}

const describe = (errors: LinearGraphqlError[]) =>
  errors
    .map((e) => e.extensions?.userPresentableMessage ?? e.message ?? 'error')
    .join('; ')
    .slice(0, 500);

/** Linear's "Entity not found" answer to a lookup by id. */
class LinearNotFound extends ProviderError {}
export const isNotFound = (err: unknown): boolean => err instanceof LinearNotFound;

function failure(status: number, headers: Headers, what: string, errors: LinearGraphqlError[]): ProviderError {
  const codes = errors.map((e) => e.extensions?.code);
  if (codes.includes('AUTHENTICATION_ERROR') || codes.includes('FORBIDDEN')) {
    return new ProviderError('credentials', `${what}: the API key was refused (${describe(errors)})`, status);
  }
  if (codes.includes('RATELIMITED')) {
    return new ProviderError('rate-limited', `${what}: rate limited`, status, retryAfterMs(headers) ?? linearResetMs(headers) ?? DEFAULT_RATE_LIMIT_WAIT_MS);
  }
  if (errors.length > 0 && errors.every((e) => e.message?.startsWith('Entity not found'))) {
    return new LinearNotFound('rejected', `${what}: ${describe(errors)}`, status);
  }
  if (status >= 400) {
    const refused = refusal(status, headers, what);
    return errors.length ? new ProviderError(refused.kind, `${refused.message}: ${describe(errors)}`, status, refused.retryAfterMs) : refused;
  }
  return new ProviderError('rejected', `${what}: ${describe(errors) || 'no data in the answer'}`, status);
}

export function linearGraphql(fetch: SafeFetch, apiUrl: string, apiKey: string): LinearGraphql {
  return async <T>({ what, query, variables }: LinearCall): Promise<T> => {
    // Personal API keys go as the bare Authorization header, as Linear documents (no Bearer).
    const response = await fetch(apiUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: apiKey },
      body: JSON.stringify({ query, variables }),
    });
    if (response.status >= 300 && response.status < 400) throw refusal(response.status, response.headers, what);
    let answer: LinearAnswer<T> | null = null;
    if (/json/i.test(response.headers.get('content-type') ?? '')) {
      try {
        answer = (await response.json()) as LinearAnswer<T>;
      } catch {
        answer = null;
      }
    } else {
      await response.arrayBuffer().catch(() => undefined);
    }
    const errors = Array.isArray(answer?.errors) ? answer.errors : [];
    if (response.ok && errors.length === 0 && answer?.data) return answer.data;
    if (!answer && response.status >= 400) throw refusal(response.status, response.headers, what);
    throw failure(response.status, response.headers, what, errors);
  };
}
