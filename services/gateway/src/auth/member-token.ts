import { AppError, isUuid, type Caller } from '@preflight/http';
import { CONSOLE, ServiceAuthError, type TokenVerifier, type VerifiedCall } from '@preflight/service-auth';
import type { GatewayMetrics } from '../metrics.ts';
import { ADMIN_CHALLENGE, type AdminCaller } from './admin-token.ts';

/** A console member: who a console token acts for on /admin/v1. */
export type MemberCaller = Extract<Caller, { kind: 'member' }>;

/**
 * Authenticates a console token on /admin/v1: a service token signed with a `console` key of
 * SERVICE_AUTH_PUBLIC_KEYS, addressed to the gateway, carrying the signed-in member it acts for
 * (libs/service-auth checks signature, audience, lifetime and that only the console's tokens
 * carry a member). A token of any other service, or one without a member, is refused: services
 * call each other directly, never through the gateway's admin API.
 *
 * Refusals are 401 with the operator's challenge and never count towards the wrong-token
 * lockout (AdminLockout): an Ed25519 signature cannot be guessed, and the console's address
 * must not be locked out by someone else guessing operator tokens behind the same address.
 */
export function memberAuthenticator(deps: { verifier: TokenVerifier; metrics: GatewayMetrics }) {
  const refuse = (detail: string) => {
    deps.metrics.authFailures.inc({ reason: 'member_token_invalid' });
    return new AppError('unauthorized', detail, { headers: ADMIN_CHALLENGE });
  };

  return async (token: string): Promise<AdminCaller> => {
    let call: VerifiedCall;
    try {
      call = await deps.verifier.verify(token);
    } catch (err) {
      if (err instanceof ServiceAuthError) throw refuse(`The console token is not valid: ${err.message}`);
      throw err;
    }
    if (call.service !== CONSOLE) throw refuse(`Only the console's tokens act for a member on the admin API; this one is the ${call.service} service's.`);
    const caller = call.caller;
    if (caller?.kind !== 'member') throw refuse('The console token acts for no member.');
    // Ids go into UUID columns (the audit log's actor) and are compared with `:orgId` paths.
    if (!isUuid(caller.orgId) || !isUuid(caller.userId)) throw refuse('The console token must name its member\'s user and organisation by UUID.');
    const member: MemberCaller = { kind: 'member', orgId: caller.orgId.toLowerCase(), userId: caller.userId.toLowerCase(), role: caller.role };
    return {
      subject: `member:${member.userId}`,
      actor: { kind: 'member', id: member.userId, name: null },
      scopes: null,
      expiresAt: null,
      member,
    };
  };
}
