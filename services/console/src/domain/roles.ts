import type { Caller, MemberRole } from '@preflight/http';

/**
 * Who may change an organisation's people (docs/console.md, "Roles"). The operator and Owners
 * may do anything; Admins manage Admins and Members but never make, unmake, invite or remove
 * an Owner; Members manage nobody (the gateway refuses them already; checked here too). No
 * I/O here: the routes read the rows and apply these rules.
 */
export type Actor = { kind: 'operator' } | { kind: 'member'; userId: string; role: MemberRole };

export function actorOf(caller: Caller): Actor | undefined {
  if (caller.kind === 'admin') return { kind: 'operator' };
  if (caller.kind === 'member') return { kind: 'member', userId: caller.userId, role: caller.role };
  return undefined;
}

const isOwnerLevel = (actor: Actor) => actor.kind === 'operator' || actor.role === 'Owner';

/** Why `actor` may not touch the organisation's people at all, or undefined. */
export function managesPeople(actor: Actor): string | undefined {
  return actor.kind === 'member' && actor.role === 'Member' ? 'Only Owners and Admins manage the members of an organisation.' : undefined;
}

export function mayInvite(actor: Actor, role: MemberRole): string | undefined {
  return managesPeople(actor) ?? (role === 'Owner' && !isOwnerLevel(actor) ? 'Only an Owner invites another Owner.' : undefined);
}

/** A role change from `from` to `to`. */
export function mayChangeRole(actor: Actor, from: MemberRole, to: MemberRole): string | undefined {
  return managesPeople(actor) ?? ((from === 'Owner' || to === 'Owner') && !isOwnerLevel(actor) ? 'Only an Owner makes someone an Owner or changes an Owner\'s role.' : undefined);
}

export function mayRemove(actor: Actor, role: MemberRole): string | undefined {
  return managesPeople(actor) ?? (role === 'Owner' && !isOwnerLevel(actor) ? 'Only an Owner removes an Owner.' : undefined);
}

/**
 * The last-Owner rule: an organisation keeps at least one Owner, so one of them can always
 * manage it. Undefined when the change leaves an Owner; otherwise why not (a 409).
 */
export function keepsAnOwner(members: ReadonlyArray<{ userId: string; role: MemberRole }>, userId: string, to: MemberRole | 'removed'): string | undefined {
  const target = members.find((m) => m.userId === userId);
  if (target?.role !== 'Owner' || to === 'Owner') return undefined;
  const owners = members.filter((m) => m.role === 'Owner').length;
  if (owners > 1) return undefined;
  return to === 'removed' ? 'This is the organisation\'s last Owner; make someone else an Owner before removing them.' : 'This is the organisation\'s last Owner; make someone else an Owner before changing their role.';
}
