import type { IssueStatus } from '@preflight/contract';
import type { InboundState } from '../providers/provider.ts';

export type InboundDecision = { to: IssueStatus } | { skip: string };

/**
 * What a tracker's change means for the Preflight issue (admin-api-v1.md, "Integrations"):
 * closed as completed → Fixed, closed as not planned → WontFix, reopened → InProgress from
 * Fixed or Acknowledged from Closed, WontFix or Duplicate; a Jira or Linear status through the
 * connection's map. The issue workflow itself decides whether the move is allowed.
 */
export function inboundTarget(change: InboundState, current: IssueStatus): InboundDecision {
  let to: IssueStatus | null;
  switch (change.kind) {
    case 'closed-completed':
      to = 'Fixed';
      break;
    case 'closed-not-planned':
      to = 'WontFix';
      break;
    case 'reopened':
      to = current === 'Fixed' ? 'InProgress' : ['Closed', 'WontFix', 'Duplicate'].includes(current) ? 'Acknowledged' : null;
      if (!to) return { skip: `reopened in the tracker, but the issue is ${current}: nothing to reopen` };
      break;
    case 'mapped':
      to = change.to;
      if (!to) return { skip: `the tracker status '${change.name}' maps to no Preflight status` };
      // A duplicate needs its original, which a tracker's status cannot name (the map may still use it outbound).
      if (to === 'Duplicate') return { skip: `the tracker status '${change.name}' maps to Duplicate, which needs the original issue: mark it in Preflight` };
      break;
  }
  if (to === current) return { skip: `the issue is already ${current}` };
  return { to };
}
