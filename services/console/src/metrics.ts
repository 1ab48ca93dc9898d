import { Counter, type Registry } from 'prom-client';

export type SignInOutcome = 'success' | 'failure' | 'rate_limited' | 'not_a_member';

export interface ConsoleMetrics {
  signIns: Counter<'outcome'>;
  sessionsRevoked: Counter;
}

export function consoleMetrics(registry: Registry): ConsoleMetrics {
  return {
    signIns: new Counter({
      name: 'console_sign_ins_total',
      help: 'Console sign-ins (password, invitation or single sign-on), by outcome: success, failure (wrong credentials), rate_limited, not_a_member.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    sessionsRevoked: new Counter({
      name: 'console_sessions_revoked_total',
      help: 'Console sessions ended by a role change or a removal from an organisation.',
      registers: [registry],
    }),
  };
}
