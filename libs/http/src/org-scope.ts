import type { Request } from 'express';
import { requireAdmin } from './caller.ts';
import { notFound } from './errors.ts';
import { pathId } from './validate.ts';

/*
 * Organisation scope on admin routes. The operator's scope is undefined (every organisation); a
 * console member's is their organisation (`requireAdmin`). Another organisation's resource is
 * answered exactly like an unknown id, so a member learns nothing of it, not even that it exists.
 */

/** Whether a caller confined to `scope` may see or change a resource of organisation `orgId`. */
export function inOrgScope(scope: string | undefined, orgId: string): boolean {
  return scope === undefined || scope === orgId;
}

/**
 * An admin route's `:orgId`, for the operator or a member of that organisation: a malformed id
 * or another organisation's is the 404 of an unknown organisation. The gateway refuses a
 * member's other organisation already; this is the service's own check (defence in depth).
 */
export function adminOrgId(req: Request): string {
  const scope = requireAdmin(req);
  const orgId = pathId(req.params.orgId, 'organization');
  if (!inOrgScope(scope, orgId)) throw notFound('organization', orgId);
  return orgId;
}
