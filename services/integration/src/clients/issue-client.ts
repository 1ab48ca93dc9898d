import type { z } from 'zod';
import { IssueStatusSchema, type InternalIssueSchema, type IssueStatus } from '@preflight/contract';
import type { ServiceTokens } from '@preflight/service-auth';
import { internalClient } from '@preflight/service-kit';
import type { IssueDetail } from '../providers/provider.ts';

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
  const issues = internalClient('issue', { baseUrl, tokens, timeoutMs: TIMEOUT_MS, unavailable: IssueServiceUnavailable });
  return {
    issue: (issueId) => issues.found('internalGetIssue', { params: { id: issueId } }),
    async changeStatus(issueId, change) {
      const answer = await issues.call('internalChangeIssueStatus', { params: { id: issueId }, body: change });
      if (answer.ok) return { kind: 'changed', status: change.to };
      if (answer.status === 404) return { kind: 'not_found' };
      // 409: the workflow refuses the move; 422: the move needs what a tracker cannot give (a Duplicate's original).
      if (answer.status === 409 || answer.status === 422) {
        const problem = (answer.problem ?? {}) as { detail?: string; currentStatus?: unknown };
        const current = IssueStatusSchema.safeParse(problem.currentStatus);
        return { kind: 'not_allowed', current: current.success ? current.data : null, detail: problem.detail ?? 'the workflow does not allow it' };
      }
      throw new IssueServiceUnavailable(`issue service answered ${answer.status} to a status change`);
    },
    close: () => issues.close(),
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
