import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundChange, InboundHooks } from '../provider.ts';
import { repoNameOf, type GithubConfig } from './schema.ts';
import { inboundStateOf, stateOf } from './state.ts';

/** GitHub's webhook signature: `sha256=<hex>`, HMAC-SHA256 of the raw body with the secret. */
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/** A header by its lower-case name, whatever case the caller's record uses. */
function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The same check as @octokit/webhooks-methods' `verify`, over the raw bytes and synchronous
 * (that one is async and takes the body as a string): a constant-time comparison of digests.
 */
function verify(headers: Record<string, string | string[] | undefined>, rawBody: Buffer, secret: string): boolean {
  const match = SIGNATURE.exec(header(headers, 'x-hub-signature-256')?.trim() ?? '');
  if (!match?.[1] || !secret) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(match[1], 'hex'), expected);
}

interface IssuesEvent {
  action?: unknown;
  issue?: { number?: unknown; state?: unknown; state_reason?: unknown };
  repository?: { full_name?: unknown };
}

/** An `issues` event closing or reopening an issue of the connection's repository; anything else is null. */
function parse(headers: Record<string, string | string[] | undefined>, body: unknown, config: GithubConfig): InboundChange | null {
  if (header(headers, 'x-github-event') !== 'issues' || typeof body !== 'object' || body === null) return null;
  const { action, issue, repository } = body as IssuesEvent;
  if (action !== 'closed' && action !== 'reopened') return null;
  const repoName = repoNameOf(config);
  if (typeof repository?.full_name !== 'string' || repository.full_name.toLowerCase() !== repoName.toLowerCase()) return null;
  if (typeof issue?.number !== 'number' || !Number.isSafeInteger(issue.number)) return null;
  // The action says what happened; the reason comes with the issue.
  const state = { state: action === 'closed' ? 'closed' : 'open', state_reason: typeof issue.state_reason === 'string' ? issue.state_reason : null };
  return {
    externalId: String(issue.number),
    externalKey: `${repoName}#${issue.number}`,
    state: stateOf(state),
    change: inboundStateOf(state),
  };
}

export const githubHooks: InboundHooks<GithubConfig> = { verify, parse };
