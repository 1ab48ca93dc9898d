import type { Request } from 'express';
import { AppError } from './errors.ts';

/**
 * Identity headers the gateway adds after authenticating a request. Services trust them
 * because only the gateway can reach them (NetworkPolicy); the gateway strips any header with
 * this prefix that arrives from outside.
 */
export const INTERNAL_HEADER_PREFIX = 'x-preflight-';
export const CALLER_HEADERS = {
  actor: 'x-preflight-actor',
  orgId: 'x-preflight-org-id',
  keyId: 'x-preflight-key-id',
  keyName: 'x-preflight-key-name',
} as const;

export type Caller =
  | { kind: 'api-key'; orgId: string; keyId: string; keyName: string }
  | { kind: 'admin' };

export function callerHeaders(caller: Caller): Record<string, string> {
  if (caller.kind === 'admin') return { [CALLER_HEADERS.actor]: 'admin' };
  return {
    [CALLER_HEADERS.actor]: 'api-key',
    [CALLER_HEADERS.orgId]: caller.orgId,
    [CALLER_HEADERS.keyId]: caller.keyId,
    // Key names are free text; header values are not.
    [CALLER_HEADERS.keyName]: encodeURIComponent(caller.keyName),
  };
}

export function callerOf(req: Request): Caller {
  const actor = req.header(CALLER_HEADERS.actor);
  if (actor === 'admin') return { kind: 'admin' };
  const orgId = req.header(CALLER_HEADERS.orgId);
  const keyId = req.header(CALLER_HEADERS.keyId);
  const keyName = req.header(CALLER_HEADERS.keyName);
  if (actor === 'api-key' && orgId && keyId && keyName !== undefined) {
    return { kind: 'api-key', orgId, keyId, keyName: decodeURIComponent(keyName) };
  }
  throw new AppError('unauthorized', 'The request carries no authenticated caller.');
}

/** The organisation a caller is confined to; an operator (admin) sees every organisation. */
export function orgScopeOf(caller: Caller): string | undefined {
  return caller.kind === 'api-key' ? caller.orgId : undefined;
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

export function requireAdmin(req: Request): void {
  if (callerOf(req).kind !== 'admin') throw new AppError('forbidden', 'This operation is reserved to the operator.');
}
