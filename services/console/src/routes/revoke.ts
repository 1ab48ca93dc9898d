import type { RouteContext } from './context.ts';

/**
 * Ends every session of a user after their role changed or they were removed (committed
 * already). Sessions of the user's other organisations end too: one sign-in then shows every
 * organisation as it is now.
 */
export async function revokeSessions(ctx: Pick<RouteContext, 'sessions' | 'metrics' | 'logger'>, userId: string): Promise<void> {
  const ended = await ctx.sessions.revokeUser(userId);
  ctx.metrics.sessionsRevoked.inc(ended);
  ctx.logger.info({ userId, sessions: ended }, 'sessions revoked after a membership change');
}
