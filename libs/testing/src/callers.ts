import { randomUUID } from 'node:crypto';
import type { TokenClaims } from '@preflight/service-auth';

type Caller = NonNullable<TokenClaims['caller']>;
export type MemberCaller = Extract<Caller, { kind: 'member' }>;

/** The operator, as the gateway forwards an operator token's request: every organisation. */
export const OPERATOR: Caller = { kind: 'admin' };

/**
 * A console member of `orgId` as the gateway forwards them (the console signed them in, the
 * gateway checked the route's role): pass it as a harness call's `as`, like the operator.
 * Services answer 404 for anything of another organisation.
 */
export function memberOf(orgId: string, role: MemberCaller['role'] = 'Admin', userId: string = randomUUID()): MemberCaller {
  return { kind: 'member', orgId, userId, role };
}
