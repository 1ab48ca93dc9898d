import { BreakerOpen } from '@preflight/breakers';
import { SecretUnavailableError } from '@preflight/secret-box';
import { IssueServiceUnavailable } from '../clients/issue-client.ts';
import { backoffMs } from '../domain/backoff.ts';
import { UNDECRYPTABLE } from '../domain/sealing.ts';
import { providerErrorIn } from '../outbound/safe-fetch.ts';
import { ProviderError } from '../providers/provider.ts';
import type { ActivityEntry } from '../storage/activity.ts';
import type { ConnectionRow } from '../storage/connections.ts';
import type { JobRow } from '../storage/jobs.ts';
import type { ActionOutcome } from './actions.ts';
import type { JobResult } from './job-results.ts';

export interface TryRules {
  maxAttempts: number;
  breakerResetMs: number;
  /** The least wait before a failed create is tried again (trackers' search indexes lag new issues). */
  createRetryMinMs: number;
}

/** How a try ended: the action's outcome, or what it threw. */
export type Settled = { ok: ActionOutcome } | { err: unknown };

/** A try's result, the label it counts under, and what the worker should say or forget. */
export interface TryVerdict {
  result: JobResult;
  /** `integration_jobs_total{outcome}`; undefined when nothing was tried (a wait). */
  metric?: string;
  log?: { level: 'warn' | 'error'; msg: string; fields: Record<string, unknown> };
  /** The provider refused the credentials: drop the cached client. */
  forgetClient?: boolean;
}

/** How long jobs wait when the issue service, our own dependency, does not answer. */
const ISSUE_SERVICE_WAIT_MS = 5_000;

/**
 * The rules of what a finished try leaves behind (docs/integrations.md, "Retries and
 * backoff"): a success finishes the job and marks the connection healthy; a rate limit and an
 * open breaker wait without using a try; refused credentials wait for new ones (the connection
 * `needs-attention`); other refusals give up at once; no answer retries with backoff up to
 * `maxAttempts`. Pure: the worker records what it returns.
 */
export function verdictOf(job: JobRow, connection: ConnectionRow, settled: Settled, rules: TryRules): TryVerdict {
  const jobId = job.id;
  if ('ok' in settled) {
    const outcome = settled.ok;
    if (outcome.kind === 'wait') return { result: { settlement: { jobId, state: 'pending', delayMs: outcome.delayMs, error: outcome.why, countAttempt: false } } };
    return {
      result: {
        settlement: { jobId, state: 'done', error: null },
        activity: { connectionId: connection.id, ...outcome.activity },
        ...(outcome.activity.outcome === 'succeeded' ? { health: { connection, status: 'active' as const, error: null } } : {}),
      },
      metric: outcome.activity.outcome,
    };
  }

  const err = settled.err;
  const inbound = job.action === 'apply-inbound';
  const entry = (outcome: ActivityEntry['outcome'], error: string, statusCode: number | null = null): ActivityEntry => ({
    connectionId: connection.id,
    direction: inbound ? 'in' : 'out',
    issueId: job.issueId,
    // The names the activity log uses for what succeeded too (actions.ts).
    action: inbound ? 'status-change' : job.action,
    outcome,
    statusCode,
    error,
    externalKey: typeof job.payload.externalKey === 'string' ? job.payload.externalKey : null,
  });
  const wait = (delayMs: number, error: string) => ({ jobId, state: 'pending' as const, delayMs, error, countAttempt: false });

  if (err instanceof BreakerOpen) return { result: { settlement: wait(rules.breakerResetMs, 'circuit breaker open') } };
  if (err instanceof IssueServiceUnavailable) {
    return { result: { settlement: wait(ISSUE_SERVICE_WAIT_MS, err.message) }, log: { level: 'warn', msg: 'issue service unavailable; the job waits', fields: { jobId, err: err.message } } };
  }
  if (err instanceof SecretUnavailableError) {
    return {
      result: { settlement: wait(0, 'credentials cannot be decrypted'), health: { connection, status: 'needs-attention', error: UNDECRYPTABLE } },
      log: { level: 'error', msg: 'connection credentials cannot be decrypted', fields: { connectionId: connection.id, keyId: err.keyId } },
    };
  }
  const found = providerErrorIn(err);
  const provider = found ?? new ProviderError('unavailable', `internal error: ${(err as Error).message}`);
  const log = found ? undefined : { level: 'error' as const, msg: 'integration job failed unexpectedly', fields: { jobId, err: (err as Error).message } };
  const failing = { connection, status: 'failing' as const, error: provider.message };
  switch (provider.kind) {
    case 'rate-limited':
      return { result: { settlement: wait(provider.retryAfterMs ?? 60_000, provider.message), activity: entry('retrying', provider.message, provider.statusCode) }, metric: provider.kind };
    case 'credentials':
      // Nothing of this connection is tried again until its credentials change (the claim skips it).
      return {
        result: {
          settlement: wait(0, provider.message),
          activity: entry('retrying', `${provider.message}; waiting for new credentials`, provider.statusCode),
          health: { connection, status: 'needs-attention', error: provider.message },
        },
        metric: provider.kind,
        forgetClient: true,
      };
    case 'rejected':
      return { result: { settlement: { jobId, state: 'failed', error: provider.message }, activity: entry('failed', provider.message, provider.statusCode), health: failing }, metric: provider.kind };
    case 'unavailable': {
      if (job.attempts >= rules.maxAttempts) {
        const activity = entry('failed', `${provider.message} (gave up after ${job.attempts} tries)`, provider.statusCode);
        return { result: { settlement: { jobId, state: 'failed', error: provider.message }, activity, health: failing }, metric: provider.kind, ...(log ? { log } : {}) };
      }
      // A create that may have reached the tracker is tried again only once its search can find what it made.
      const delayMs = job.action === 'create' ? Math.max(backoffMs(job.attempts), rules.createRetryMinMs) : backoffMs(job.attempts);
      return {
        result: { settlement: { jobId, state: 'pending', delayMs, error: provider.message, countAttempt: true }, activity: entry('retrying', provider.message, provider.statusCode), health: failing },
        metric: provider.kind,
        ...(log ? { log } : {}),
      };
    }
  }
}
