import { onlyFrom } from '@preflight/service-auth';
import { adminCreateIntegration } from './admin-create-integration.ts';
import { adminDeleteIntegration } from './admin-delete-integration.ts';
import { adminIssueLinks } from './admin-issue-links.ts';
import { adminListActivity } from './admin-list-activity.ts';
import { adminListIntegrations } from './admin-list-integrations.ts';
import { adminRetryFailed } from './admin-retry-failed.ts';
import { adminRotateInboundSecret } from './admin-rotate-inbound-secret.ts';
import { adminTestIntegration } from './admin-test-integration.ts';
import { adminUpdateIntegration } from './admin-update-integration.ts';
import type { Registration } from './context.ts';
import { publicInboundHook } from './public-inbound-hook.ts';

/** Admin routes read JSON bodies (mounted under jsonBodies in app.ts); the inbound hook reads its raw body. */
export const adminRegistrations: Registration[] = [
  adminCreateIntegration,
  adminListIntegrations,
  adminUpdateIntegration,
  adminDeleteIntegration,
  adminTestIntegration,
  adminListActivity,
  adminIssueLinks,
  adminRotateInboundSecret,
  adminRetryFailed,
];

/** The trackers' hooks carry no caller, so the gateway's token is what says they came through it. */
export const publicRegistrations: Registration[] = [onlyFrom(['gateway'], publicInboundHook)];
