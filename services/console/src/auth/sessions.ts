import type { Response } from 'express';
import type { Kysely } from '@preflight/db';
import { clearSessionCookie, setSessionCookie } from '../http/cookies.ts';
import { localsOf } from '../http/session.ts';
import type { ConsoleMetrics } from '../metrics.ts';
import type { SessionStore } from '../sessions/store.ts';
import type { Member } from '../gateway-client/fetch.ts';
import { orgsOfUser, rememberOrgName } from '../storage/memberships.ts';
import type { ConsoleDatabase } from '../storage/schema.ts';
import { recordSignIn } from '../storage/users.ts';

export interface AuthDeps {
  db: Kysely<ConsoleDatabase>;
  sessions: SessionStore;
  metrics: ConsoleMetrics;
  absoluteSeconds: number;
  /** The organisation's name from the gateway (which owns it), asked as the member; undefined if it cannot say. */
  organisationName: (member: Member) => Promise<string | undefined>;
}

/** How a sign-in ended: no organisation to enter, or a session (and whether there are others to choose from). */
export type SignedIn = { kind: 'not_a_member' } | { kind: 'signed_in'; orgId: string; choose: boolean };

/**
 * Starts a session for a user whose credentials were checked: for `orgId` when they are a member
 * of it, else their first organisation (`choose` when they have several: the org chooser
 * follows). Always a new session id, and the request's old session ends: an id planted before
 * sign-in is worthless after it. The role comes from the database (and is checked again on
 * every request, http/session.ts).
 */
export async function startSession(res: Response, deps: AuthDeps, user: { id: string; email: string }, opts: { orgId?: string; switching?: boolean } = {}): Promise<SignedIn> {
  const { orgId, switching = false } = opts;
  const orgs = await orgsOfUser(deps.db, user.id);
  const org = orgs.find((o) => o.orgId === orgId) ?? (orgId === undefined ? orgs[0] : undefined);
  if (!org) {
    if (!switching) deps.metrics.signIns.inc({ outcome: 'not_a_member' });
    return { kind: 'not_a_member' };
  }
  let orgName = org.orgName;
  if (!org.named) {
    // Learnt once, at the first sign-in to an organisation no invitation named.
    const name = await deps.organisationName({ orgId: org.orgId, userId: user.id, role: org.role });
    if (name !== undefined) {
      await rememberOrgName(deps.db, org.orgId, name);
      orgName = name;
    }
  }
  const previous = localsOf(res).sessionId;
  if (previous) await deps.sessions.destroy(previous);
  const { id, session } = await deps.sessions.create({ userId: user.id, orgId: org.orgId, orgName, role: org.role, email: user.email });
  setSessionCookie(res, id, deps.absoluteSeconds);
  Object.assign(localsOf(res), { sessionId: id, session });
  if (!switching) {
    await recordSignIn(deps.db, user.id);
    deps.metrics.signIns.inc({ outcome: 'success' });
  }
  return { kind: 'signed_in', orgId: org.orgId, choose: orgId === undefined && orgs.length > 1 };
}

/** Ends the request's session, if any, and clears its cookie. */
export async function endSession(res: Response, sessions: SessionStore): Promise<void> {
  const locals = localsOf(res);
  if (locals.sessionId) await sessions.destroy(locals.sessionId);
  delete locals.session;
  delete locals.sessionId;
  clearSessionCookie(res);
}
