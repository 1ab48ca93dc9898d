import type { IssueStatus } from '@preflight/contract';
import type { ChatMessage, InboundState, IssueCard } from '../providers/provider.ts';

/** What each job keeps in `jobs.payload` (JSON), by action. */

export type StatusEvent = Extract<ChatMessage, { oldStatus: IssueStatus }>['event'];

/** An announcement: the card of a new issue (the link is added when it is sent), or what else happened. */
export type AnnouncePayload =
  | { event: 'IssueCreated'; issueId: string; severity: string | null; card: Omit<IssueCard, 'link'> }
  | { event: StatusEvent; issueId: string; severity: string | null; oldStatus: IssueStatus; reason: string | null }
  | { event: 'Other'; issueId: null; severity: null; text: string };

export interface CreatePayload {
  issueId: string;
}

export interface SyncPayload {
  issueId: string;
  reason: string | null;
}

/** A tracker's verified hook, waiting to be applied through the issue service. */
export interface InboundPayload {
  issueId: string;
  externalId: string;
  externalKey: string;
  state: string;
  change: InboundState;
}
