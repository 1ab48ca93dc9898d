import type { MemberAccess } from '@preflight/contract';
import { AppError, notFound, pathId, type MemberRole } from '@preflight/http';
import type { MemberCaller } from '../auth/member-token.ts';

/** The roles each manifest `members` value lets in (libs/contract, manifest/endpoint.ts). */
const ROLES: Record<MemberAccess, readonly MemberRole[]> = {
  Member: ['Owner', 'Admin', 'Member'],
  Admin: ['Owner', 'Admin'],
};

/**
 * Whether a console member may make this admin call, decided from the route alone before any
 * body is read: an operator-only route (no `members`) and a role the route does not allow are 403;
 * an `:orgId` of another organisation is the 404 an unknown organisation gets, so a member never
 * learns whether another organisation exists. Resources named by other ids are the services'
 * to confine (libs/http `requireAdmin` returns the member's organisation; 404 outside it).
 */
export function admitMember(access: MemberAccess | undefined, params: Record<string, string>, member: MemberCaller): void {
  if (access === undefined) throw new AppError('forbidden', 'This operation is reserved to the operator.');
  const allowed = ROLES[access];
  if (!allowed.includes(member.role)) {
    throw new AppError('forbidden', `This operation needs the role ${allowed.join(' or ')}; yours is ${member.role}.`, { requiredRoles: allowed });
  }
  if (params.orgId === undefined) return;
  const orgId = pathId(params.orgId, 'organization');
  if (orgId !== member.orgId) throw notFound('organization', orgId);
}
