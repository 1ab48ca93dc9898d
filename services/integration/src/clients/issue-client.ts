import { Agent, request } from 'undici';
import type { z } from 'zod';
import { InternalIssueSchema, IssueStatusSchema, pathOf, type InternalStatusChangeRequestSchema, type IssueStatus } from '@preflight/contract';
import { outgoingTraceparent } from '@preflight/http';
import type { ServiceTokens } from '@preflight/service-auth';
import type { IssueDetail } from '../providers/provider.ts';

// The issue service's internal detail (GET /internal/v1/issues/:id): InternalIssueSchema (libs/contract, internal.ts).

export type InternalIssue = z.infer<typeof InternalIssueSchema>;


/** The issue service could not give a usable answer (down, timing out, garbled): retry later. */
export class IssueServiceUnavailable extends Error {
  override readonly name = 'IssueServiceUnavailable';
}

export type StatusChangeAnswer =
  | { kind: 'changed'; status: IssueStatus }
  | { kind: 'not_found' }
  | { kind: 'not_allowed'; current: IssueStatus | null; detail: string };

export interface IssueClient {
  /** The issue, or undefined when the issue service says it does not exist. */
  issue(issueId: string): Promise<InternalIssue | undefined>;
  /** One step of the workflow, through the issue service's pipeline (history, events, webhooks). */
  changeStatus(issueId: string, change: { to: IssueStatus; reason: string; origin: string }): Promise<StatusChangeAnswer>;
  close(): Promise<void>;
}

const TIMEOUT_MS = 5_000;

export function createIssueClient(baseUrl: string, tokens: Pick<ServiceTokens, 'authorization'>): IssueClient {
  const dispatcher = new Agent({ connect: { timeout: TIMEOUT_MS }, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  const base = baseUrl.replace(/\/+$/, '');

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const traceparent = outgoingTraceparent();
    try {
      const authorization = await tokens.authorization('issue');
      const res = await request(`${base}${path}`, {
        method,
        dispatcher,
        headers: { accept: 'application/json', authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(traceparent ? { traceparent } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.body.text();
      return { status: res.statusCode, json: text ? (JSON.parse(text) as unknown) : undefined };
    } catch (err) {
      throw new IssueServiceUnavailable(`issue service: ${(err as Error).message}`, { cause: err });
    }
  };

  return {
    async issue(issueId) {
      const { status, json } = await call('GET', pathOf('internalGetIssue', { id: issueId }));
      if (status === 404) return undefined;
      if (status !== 200) throw new IssueServiceUnavailable(`issue service answered ${status}`);
      const parsed = InternalIssueSchema.safeParse(json);
      if (!parsed.success) throw new IssueServiceUnavailable('issue service answered with an unexpected issue shape');
      return parsed.data;
    },
    async changeStatus(issueId, change) {
      const { status, json } = await call('POST', pathOf('internalChangeIssueStatus', { id: issueId }), change satisfies z.input<typeof InternalStatusChangeRequestSchema>);
      if (status === 200) return { kind: 'changed', status: change.to };
      if (status === 404) return { kind: 'not_found' };
      // 409: the workflow refuses the move; 422: the move needs what a tracker cannot give (a Duplicate's original).
      if (status === 409 || status === 422) {
        const problem = (json ?? {}) as { detail?: string; currentStatus?: unknown };
        const current = IssueStatusSchema.safeParse(problem.currentStatus);
        return { kind: 'not_allowed', current: current.success ? current.data : null, detail: problem.detail ?? 'the workflow does not allow it' };
      }
      throw new IssueServiceUnavailable(`issue service answered ${status} to a status change`);
    },
    close: () => dispatcher.close(),
  };
}

/** The internal issue as a tracker body sees it. */
export function toIssueDetail(issue: InternalIssue, link: string): IssueDetail {
  return {
    issueId: issue.id,
    seqNumber: issue.seqNumber,
    title: issue.title,
    severity: issue.severity,
    type: issue.type,
    status: issue.status,
    campaignId: issue.campaignId,
    campaignName: issue.campaignName,
    pageUrl: issue.pageUrl,
    reporter: issue.testerEmail ?? issue.reporter ?? null,
    link,
    createdAt: issue.createdAt,
    description: issue.description,
    stepsToReproduce: issue.stepsToReproduce,
    expectedBehavior: issue.expectedBehavior,
    actualBehavior: issue.actualBehavior,
    pageTitle: issue.pageTitle,
    browserName: issue.browserName,
    browserVersion: issue.browserVersion,
    operatingSystem: issue.operatingSystem,
    deviceType: issue.deviceType,
    screenResolution: issue.screenResolution,
    screenshotUrl: issue.screenshotUrl,
  };
}
