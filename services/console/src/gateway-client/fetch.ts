import { AppError, outgoingTraceparent, type MemberRole, type ProblemBody } from '@preflight/http';
import type { ServiceTokens } from '@preflight/service-auth';

/** The signed-in member a call acts for: the caller the console's service token carries. */
export interface Member {
  orgId: string;
  userId: string;
  role: MemberRole;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The gateway answered with a problem (4xx, or a 5xx the page may want to show). The console's
 * error pages render 403 and 404 as its own 403 and 404, 429 with its Retry-After, 5xx as 503;
 * pages catch 409 and 422 to show `problem.detail` and `problem.errors` on their form.
 */
export class AdminApiError extends Error {
  override readonly name = 'AdminApiError';
  constructor(
    readonly status: number,
    readonly problem: ProblemBody,
    /** Seconds, from the answer's Retry-After, when it had one. */
    readonly retryAfter?: number,
  ) {
    super(`admin API answered ${status}: ${problem.detail ?? problem.title ?? ''}`);
  }
}

/** A call to the gateway's admin API as one member: the answer's JSON (undefined for 204). */
export type AdminFetch = <T = unknown>(method: HttpMethod, path: string, body?: unknown) => Promise<T>;

export type MemberAdminFetch = <T = unknown>(member: Member, method: HttpMethod, path: string, body?: unknown) => Promise<T>;

/** Longer than the gateway's own upstream timeout (15 s), so its 503 arrives before ours. */
const TIMEOUT_MS = 20_000;

function problemOf(status: number, body: unknown): ProblemBody {
  if (typeof body === 'object' && body !== null && 'status' in body) return body as ProblemBody;
  return { type: null, title: null, status, detail: `The admin API answered ${status}.`, instance: null, traceId: null };
}

/**
 * `adminFetch(member, method, path, body?)`: every action of a member goes through the
 * gateway's admin API (`GATEWAY_URL` + `/admin/v1/...`) with a console service token carrying
 * the member, so it meets the same routes, events, webhooks, audit log and limits as the
 * operator's. No answer at all (gateway down, timed out) is the console's 503 page.
 */
export function createAdminFetch(gatewayUrl: string, tokens: Pick<ServiceTokens, 'authorization'>): MemberAdminFetch {
  const base = gatewayUrl.replace(/\/+$/, '');
  return async <T>(member: Member, method: HttpMethod, path: string, body?: unknown): Promise<T> => {
    if (!path.startsWith('/admin/v1/')) throw new Error(`adminFetch: ${path} is not an admin API path`);
    const authorization = await tokens.authorization('gateway', { kind: 'member', orgId: member.orgId, userId: member.userId, role: member.role });
    const traceparent = outgoingTraceparent();
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          authorization,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(traceparent ? { traceparent } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      throw new AppError('upstream_unavailable', 'The console cannot reach the Preflight gateway just now; try again shortly.');
    }
    const text = await res.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.status >= 400) {
      const retryAfter = Number(res.headers.get('retry-after'));
      throw new AdminApiError(res.status, problemOf(res.status, parsed), Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
    }
    return parsed as T;
  };
}

/** `adminFetch` bound to one member: what a page handler gets as `admin`. */
export const bindMember = (adminFetch: MemberAdminFetch, member: Member): AdminFetch => (method, path, body) => adminFetch(member, method, path, body);
