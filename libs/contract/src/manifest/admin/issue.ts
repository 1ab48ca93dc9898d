import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';

/**
 * Issues: filing, lists, status changes and assignees.
 * Admin API (admin-api-v1.md); request and response shapes live beside their entries.
 */
export const ISSUE_ADMIN_ENDPOINTS = {
  adminCreateIssue: admin('POST', '/admin/v1/campaigns/:id/issues', 'issue', 'Member'),
  adminListIssues: admin('GET', '/admin/v1/campaigns/:id/issues', 'issue', 'Member'),
  adminGetIssue: admin('GET', '/admin/v1/issues/:id', 'issue', 'Member'),
  adminChangeIssueStatus: admin('POST', '/admin/v1/issues/:id/status', 'issue', 'Member'),
  adminSetAssignee: admin('POST', '/admin/v1/issues/:id/assignee', 'issue', 'Member'),
} satisfies Record<string, Endpoint>;
