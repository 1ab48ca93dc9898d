import type { Request } from 'express';
import { adminOrgId, AppError, callerOf } from '@preflight/http';
import { actorOf, type Actor } from '../domain/roles.ts';

/** The organisation of an admin route (404 outside the caller's scope) and who acts on it. */
export function orgAndActor(req: Request): { orgId: string; actor: Actor } {
  const orgId = adminOrgId(req);
  const actor = actorOf(callerOf(req));
  if (!actor) throw new AppError('forbidden', 'This operation is reserved to the operator and the organisation\'s members.');
  return { orgId, actor };
}

/** Refuses with 403 when a rule says why not. */
export function allow(reason: string | undefined): void {
  if (reason) throw new AppError('forbidden', reason);
}
