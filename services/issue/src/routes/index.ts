import { onlyFrom } from '@preflight/service-auth';
import { adminChangeStatus } from './admin-change-status.ts';
import { adminCreateIssue } from './admin-create-issue.ts';
import { adminGetIssue } from './admin-get-issue.ts';
import { adminListIssues } from './admin-list-issues.ts';
import { adminSetAssignee } from './admin-set-assignee.ts';
import type { Registration } from './context.ts';
import { internalChangeStatus } from './internal-change-status.ts';
import { internalGetIssue } from './internal-get-issue.ts';
import { publicCreateIssue } from './public-create-issue.ts';
import { publicGetIssue } from './public-get-issue.ts';
import { publicListIssues } from './public-list-issues.ts';

export const registrations: Registration[] = [
  publicListIssues,
  publicCreateIssue,
  publicGetIssue,
  adminListIssues,
  adminCreateIssue,
  adminGetIssue,
  adminChangeStatus,
  adminSetAssignee,
  // The integration service's tracker sync: it acts without an organisation's key.
  onlyFrom(['integration'], internalGetIssue),
  onlyFrom(['integration'], internalChangeStatus),
];
