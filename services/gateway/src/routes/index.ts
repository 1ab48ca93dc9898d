import { TRACKER_HOOK_BODY_LIMIT } from '@preflight/http';
import { routesFromManifest } from '../routing/from-manifest.ts';
import type { LocalEndpoints, RouteSpec } from '../routing/route.ts';
import { auditLog } from './admin-audit-log.ts';
import { createApiKey } from './admin-create-api-key.ts';
import { createOperatorToken } from './admin-create-operator-token.ts';
import { createOrganization } from './admin-create-organization.ts';
import { getOrganization } from './admin-get-organization.ts';
import { listApiKeys } from './admin-list-api-keys.ts';
import { listOperatorTokens } from './admin-list-operator-tokens.ts';
import { listOrganizations } from './admin-list-organizations.ts';
import { revokeApiKey } from './admin-revoke-api-key.ts';
import { revokeOperatorToken } from './admin-revoke-operator-token.ts';
import { me } from './public-get-me.ts';
import { openapi } from './public-get-open-api-document.ts';

/**
 * What the trackers sign and describe their hooks with (admin-api-v1.md, "Integrations"):
 * GitHub `X-Hub-Signature-256`, `X-GitHub-Event`, `X-GitHub-Delivery`, `X-GitHub-Hook-ID`;
 * Linear `Linear-Signature`, `Linear-Event`, `Linear-Delivery`; Jira `X-Hub-Signature`,
 * `X-Atlassian-Webhook-Identifier`, `X-Atlassian-Webhook-Retry`; and `User-Agent`, which names
 * the sender.
 */
const TRACKER_HOOK_HEADERS = [
  'x-hub-signature-256',
  'x-hub-signature',
  'x-github-event',
  'x-github-delivery',
  'x-github-hook-id',
  'linear-signature',
  'linear-event',
  'linear-delivery',
  'x-atlassian-webhook-identifier',
  'x-atlassian-webhook-retry',
  'user-agent',
] as const;

/**
 * Every route the gateway serves, built from the route manifest (libs/contract, manifest/):
 * the endpoints it answers itself are its handlers below, every other public, admin and hook
 * endpoint is forwarded to its owner. Admin routes forwarded with an `:orgId` get a 404 from the
 * gateway when the organisation does not exist, so services never need the identity schema.
 */
const LOCAL = {
  getOpenApiDocument: openapi,
  getMe: me,
  adminCreateOrganization: createOrganization,
  adminListOrganizations: listOrganizations,
  adminGetOrganization: getOrganization,
  adminCreateApiKey: createApiKey,
  adminListApiKeys: listApiKeys,
  adminRevokeApiKey: revokeApiKey,
  adminCreateOperatorToken: createOperatorToken,
  adminListOperatorTokens: listOperatorTokens,
  adminRevokeOperatorToken: revokeOperatorToken,
  adminAuditLog: auditLog,
} satisfies LocalEndpoints;

export const ROUTES: readonly RouteSpec[] = routesFromManifest(LOCAL, {
  // The trackers' hooks: their signature and event headers pass, the raw body is forwarded byte
  // for byte (the integration service checks the signature over it), and it may be larger.
  trackerHook: { forwardHeaders: TRACKER_HOOK_HEADERS, bodyLimitBytes: TRACKER_HOOK_BODY_LIMIT },
});
