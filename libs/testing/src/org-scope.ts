import { randomUUID } from 'node:crypto';
import type { TokenClaims } from '@preflight/service-auth';
import type { Reply } from './service-call.ts';

/*
 * Organisation-scope tests of a service's admin routes (issue 24): a console member of another
 * organisation must get, for each route, exactly the answer an unknown id gets, and a member of
 * the organisation the same success as the operator. A test lists its routes as cases over a
 * fixture (the ids it made) and compares answers.
 */

type Caller = NonNullable<TokenClaims['caller']>;

/** One admin route, called on a fixture's resources; `ok` is its success status. */
export interface ScopeCase<F> {
  /** The manifest entry's name. */
  route: string;
  call(fixture: F, as: Caller): Promise<Reply>;
  ok: number;
}

/** What a client reads of an answer: the status and, for a problem, its kind and text with every id as `<id>`. */
export interface ScopeAnswer {
  route: string;
  status: number;
  problem?: { type: unknown; title: unknown; detail: string };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Each case called in order as `as` on `fixture`, answered as a client reads it (ids left out, so answers about different ids compare equal). */
export async function answersOf<F>(cases: ReadonlyArray<ScopeCase<F>>, fixture: F, as: Caller): Promise<ScopeAnswer[]> {
  const answers: ScopeAnswer[] = [];
  for (const c of cases) {
    const reply = await c.call(fixture, as);
    const isProblem = reply.headers.get('content-type')?.startsWith('application/problem+json') ?? false;
    answers.push({
      route: c.route,
      status: reply.status,
      ...(isProblem ? { problem: { type: reply.body.type, title: reply.body.title, detail: String(reply.body.detail).replace(UUID, '<id>') } } : {}),
    });
  }
  return answers;
}

/** `fixture` with a fresh UUID in place of each id (its UUID strings, alone or in arrays): the same requests, naming nothing that exists. */
export function withFreshIds<F extends object>(fixture: F): F {
  const fresh = (v: unknown): unknown => (typeof v === 'string' && new RegExp(`^${UUID.source}$`, 'i').test(v) ? randomUUID() : v);
  return Object.fromEntries(Object.entries(fixture).map(([k, v]) => [k, Array.isArray(v) ? v.map(fresh) : fresh(v)])) as F;
}

/** The admin endpoints of `owner` open to console members (an entry with `members`), by name, sorted. */
export function memberRoutes(endpoints: Record<string, { owner: string; members?: string }>, owner: string): string[] {
  return Object.entries(endpoints)
    .filter(([, e]) => e.owner === owner && e.members !== undefined)
    .map(([name]) => name)
    .sort();
}
