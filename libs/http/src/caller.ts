import type { MemberRole } from '@preflight/contract';
import type { Request } from 'express';
import { AppError } from './errors.ts';

/**
 * Identity headers the gateway adds after authenticating a request (it strips any header with
 * this prefix that arrives from outside). Services no longer read them: the caller they act
 * for is the one in the gateway's signed service token (`bindCaller`, libs/service-auth). The
 * gateway still sends them for services of the previous release during a rolling upgrade.
 */
export const INTERNAL_HEADER_PREFIX = 'x-preflight-';
export const CALLER_HEADERS = {
  actor: 'x-preflight-actor',
  orgId: 'x-preflight-org-id',
  keyId: 'x-preflight-key-id',
  keyName: 'x-preflight-key-name',
} as const;

export { MEMBER_ROLES, type MemberRole } from '@preflight/contract';

/**
 * Who a request acts for: an organisation's API key (`/api/v1`), the operator (`/admin/v1`, every
 * organisation), or a member of one organisation signed in to the console, who reaches the admin
 * API through the console and is confined to that organisation (the gateway checks the role per
 * endpoint from the route manifest; services answer 404 for another organisation's resources).
 */
export type Caller =
  | { kind: 'api-key'; orgId: string; keyId: string; keyName: string }
  | { kind: 'admin' }
  | { kind: 'member'; orgId: string; userId: string; role: MemberRole };

export function callerHeaders(caller: Caller): Record<string, string> {
  if (caller.kind === 'admin') return { [CALLER_HEADERS.actor]: 'admin' };
  if (caller.kind === 'member') return { [CALLER_HEADERS.actor]: 'member', [CALLER_HEADERS.orgId]: caller.orgId };
  return {
    [CALLER_HEADERS.actor]: 'api-key',
    [CALLER_HEADERS.orgId]: caller.orgId,
    [CALLER_HEADERS.keyId]: caller.keyId,
    // Key names are free text; header values are not.
    [CALLER_HEADERS.keyName]: encodeURIComponent(caller.keyName),
  };
}

/** What the service-token check proved about a request: which service sent it, for whom. */
export interface AuthenticatedCall {
  service: string;
  caller: Caller | undefined;
}

// A WeakMap, not a request property: nothing a client sends can set it.
const calls = new WeakMap<Request, AuthenticatedCall>();

/** Called once per request by the service-token check (libs/service-auth) before any route runs. */
export function bindCall(req: Request, call: AuthenticatedCall): void {
  calls.set(req, call);
}

/** The verified calling service and end caller; undefined before (or without) the check. */
export function callOf(req: Request): AuthenticatedCall | undefined {
  return calls.get(req);
}

export function callerOf(req: Request): Caller {
  const caller = calls.get(req)?.caller;
  if (caller) return caller;
  throw new AppError('unauthorized', 'The request carries no authenticated caller (an API key or the operator, in a gateway service token).');
}

/** The organisation a caller is confined to; an operator (admin) sees every organisation. */
export function orgScopeOf(caller: Caller): string | undefined {
  return caller.kind === 'admin' ? undefined : caller.orgId;
}

/**
 * Public (`/api/v1`) routes act for an API key's organisation. The operator token never
 * authenticates there (admin-api-v1.md), so any other caller is turned away as unauthenticated.
 */
export function requireApiKey(req: Request): Extract<Caller, { kind: 'api-key' }> {
  const caller = callerOf(req);
  if (caller.kind !== 'api-key') throw new AppError('unauthorized', 'This endpoint is called with an API key.');
  return caller;
}

/**
 * Admin (`/admin/v1`) routes act for the operator or for a console member. Returns the
 * organisation the caller is confined to (undefined for the operator): a handler must answer 404
 * for any resource outside it, exactly as for an unknown id.
 */
export function requireAdmin(req: Request): string | undefined {
  const caller = callerOf(req);
  if (caller.kind === 'api-key') throw new AppError('forbidden', 'This operation is reserved to the operator and the organisation\'s members.');
  return orgScopeOf(caller);
}
