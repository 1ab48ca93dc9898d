import type { IssueSeverity, IssueStatus, IssueType } from '@preflight/contract';
import { createEvent, toTimestamp, type DomainEvent } from '@preflight/events';
import type { StatusTransition } from './issue-workflow.ts';

/**
 * The domain events of the issue service (proto/preflight/issue/v1/events.proto), built from
 * what the changing transaction just wrote. Every event carries the issue's revision after the
 * change. What they become publicly is decided in @preflight/events (`toPublicEvents`).
 */

const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

export function issueCreatedEvent(issue: {
  id: string;
  orgId: string;
  campaignId: string;
  seqNumber: number;
  title: string;
  severity: IssueSeverity;
  type: IssueType;
  status: IssueStatus;
  pageUrl: string | null;
  testerEmail: string | null;
  reporter: string;
  createdAt: Date;
  revision: number;
}): DomainEvent {
  return createEvent('IssueCreated', {
    issueId: issue.id,
    orgId: issue.orgId,
    campaignId: issue.campaignId,
    seqNumber: issue.seqNumber,
    title: issue.title,
    severity: issue.severity,
    type: issue.type,
    status: issue.status,
    pageUrl: opt(issue.pageUrl),
    testerEmail: opt(issue.testerEmail),
    reporter: issue.reporter,
    createdAt: toTimestamp(issue.createdAt),
    revision: issue.revision,
  });
}

export function issueStatusChangedEvent(change: {
  issueId: string;
  orgId: string;
  campaignId: string;
  title: string;
  severity: IssueSeverity;
  transition: StatusTransition;
  reason: string | null;
  /** Where the change came from when not a person in Preflight (`integration:<connectionId>`). */
  origin?: string | null;
  occurredAt: Date;
  revision: number;
}): DomainEvent {
  return createEvent('IssueStatusChanged', {
    issueId: change.issueId,
    orgId: change.orgId,
    campaignId: change.campaignId,
    title: change.title,
    severity: change.severity,
    oldStatus: change.transition.from,
    newStatus: change.transition.to,
    reason: opt(change.reason),
    origin: opt(change.origin),
    occurredAt: toTimestamp(change.occurredAt),
    revision: change.revision,
  });
}

export function issueAssignedEvent(change: {
  issueId: string;
  orgId: string;
  campaignId: string;
  title: string;
  assigneeName: string | null;
  oldAssigneeName: string | null;
  occurredAt: Date;
  revision: number;
}): DomainEvent {
  return createEvent('IssueAssigned', {
    issueId: change.issueId,
    orgId: change.orgId,
    campaignId: change.campaignId,
    title: change.title,
    assigneeName: opt(change.assigneeName),
    oldAssigneeName: opt(change.oldAssigneeName),
    occurredAt: toTimestamp(change.occurredAt),
    revision: change.revision,
  });
}
