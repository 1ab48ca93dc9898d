import { IssueListQuerySchema } from '../../requests.ts';
import { CreateIssueResponseSchema, IssuePageSchema } from '../../resources.ts';
import type { Endpoint } from '../endpoint.ts';
import { admin } from './access.ts';
import { AdminChangeIssueStatusRequestSchema, AdminCreateIssueRequestSchema, AdminIssueSchema, AdminSetAssigneeRequestSchema } from './issue-shapes.ts';

/**
 * Issues: filing, lists, status changes and assignees.
 * Admin API (admin-api-v1.md); the request and response shapes are in issue-shapes.ts. Lists
 * are in the public IssuePage shape; every other answer is the issue detail plus `reporter`.
 */
export const ISSUE_ADMIN_ENDPOINTS = {
  adminCreateIssue: admin('POST', '/admin/v1/campaigns/:id/issues', 'issue', 'Member', { request: { body: AdminCreateIssueRequestSchema }, response: { status: 201, body: CreateIssueResponseSchema } }),
  adminListIssues: admin('GET', '/admin/v1/campaigns/:id/issues', 'issue', 'Member', { request: { query: IssueListQuerySchema }, response: { status: 200, body: IssuePageSchema } }),
  adminGetIssue: admin('GET', '/admin/v1/issues/:id', 'issue', 'Member', { response: { status: 200, body: AdminIssueSchema } }),
  adminChangeIssueStatus: admin('POST', '/admin/v1/issues/:id/status', 'issue', 'Member', { request: { body: AdminChangeIssueStatusRequestSchema }, response: { status: 200, body: AdminIssueSchema } }),
  adminSetAssignee: admin('POST', '/admin/v1/issues/:id/assignee', 'issue', 'Member', { request: { body: AdminSetAssigneeRequestSchema }, response: { status: 200, body: AdminIssueSchema } }),
} satisfies Record<string, Endpoint>;
