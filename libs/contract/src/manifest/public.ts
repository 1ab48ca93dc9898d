import { z } from 'zod';
import { EMITTED_EVENT_TYPES, EventEnvelopeSchema, RESERVED_EVENT_TYPES } from '../events.ts';
import { CampaignListQuerySchema, CreateIssueRequestSchema, CreateWebhookRequestSchema, IssueListQuerySchema } from '../requests.ts';
import {
  ApiKeyContextSchema,
  CreateIssueResponseSchema,
  CreateWebhookResponseSchema,
  IssuePageSchema,
  PublicCampaignSchema,
  PublicIssueSchema,
  PublicWebhookSchema,
} from '../resources.ts';
import type { Scope } from '../enums.ts';
import type { Endpoint, HttpMethod, ProblemName, ServiceName } from './endpoint.ts';

/**
 * The public API (public-api-v1.md section 4), in the order of the OpenAPI document. The key is
 * the operationId. A new public endpoint is an entry here, its route file in the owning service
 * (named by `routeFileOf`) and their tests.
 */

const BODY_PROBLEMS: ProblemName[] = ['BadRequest', 'RequestTimeout', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed'];

/** An endpoint for API keys carrying `scope` (`any`: any valid key). */
const byKey = <O extends ServiceName>(method: HttpMethod, path: string, scope: Scope | 'any', owner: O) => ({ method, path, auth: 'api-key' as const, scope, owner });

/** GET /api/v1/events: the names of the events emitted today. */
export const EventNamesSchema = z.array(z.string()).meta({ examples: [[...EMITTED_EVENT_TYPES]] });

export const PUBLIC_ENDPOINTS = {
  getOpenApiDocument: {
    method: 'GET',
    path: '/api/v1/openapi.json',
    auth: 'none',
    owner: 'gateway',
    response: { status: 200 },
    doc: {
      tag: 'Contract', summary: 'This OpenAPI document',
      description: 'The machine-readable contract of the public API. No API key and no rate limit.',
      problems: [], returns: 'The OpenAPI 3.1 document.',
      responseSchema: { type: 'object' },
      responseHeaders: { 'Cache-Control': { description: 'Cacheable for 5 minutes.', schema: { type: 'string', examples: ['public, max-age=300'] } } },
    },
  },
  getMe: {
    ...byKey('GET', '/api/v1/me', 'any', 'gateway'),
    response: { status: 200, body: ApiKeyContextSchema },
    doc: {
      tag: 'Identity', summary: 'The calling key and its organisation',
      description: 'Returns the calling API key (id, name, scopes) and its organisation.',
      problems: [], returns: 'The calling key and its organisation.',
    },
  },
  listCampaigns: {
    ...byKey('GET', '/api/v1/campaigns', 'read', 'campaign'),
    request: { query: CampaignListQuerySchema },
    response: { status: 200, body: z.array(PublicCampaignSchema) },
    doc: {
      tag: 'Campaigns', summary: 'List campaigns',
      description: 'All campaigns of the organisation with their readiness verdicts, newest first. The list is not paged.',
      parameters: ['CampaignStatusFilter'],
      problems: ['BadRequest'], returns: 'The campaigns, newest first.',
    },
  },
  listCampaignIssues: {
    ...byKey('GET', '/api/v1/campaigns/:id/issues', 'read', 'issue'),
    request: { query: IssueListQuerySchema },
    response: { status: 200, body: IssuePageSchema },
    doc: {
      tag: 'Issues', summary: 'List the issues of a campaign',
      description:
        'One page of the issues of a campaign, most severe first (Critical … Trivial), then by seqNumber. `total` counts the issues matching the filters; `hasMore` tells whether further pages exist.',
      parameters: ['CampaignId', 'IssueStatusFilter', 'IssueSeverityFilter', 'Page', 'PageSize'],
      problems: ['BadRequest', 'NotFound'], returns: 'One page of issue summaries.',
    },
  },
  createIssue: {
    ...byKey('POST', '/api/v1/campaigns/:id/issues', 'write', 'issue'),
    request: { body: CreateIssueRequestSchema },
    response: { status: 201, body: CreateIssueResponseSchema },
    doc: {
      tag: 'Issues', summary: 'File an issue',
      description:
        'Files an issue through the same pipeline as the dashboard: it gets the next per-campaign seqNumber, fires `IssueCreated` to webhooks and chat channels and is synced to connected issue trackers. The reporter is recorded as `API key {name}`, the name of the calling key.',
      parameters: ['CampaignId'],
      problems: [...BODY_PROBLEMS, 'NotFound'], returns: 'The issue was filed.',
    },
  },
  getIssue: {
    ...byKey('GET', '/api/v1/issues/:id', 'read', 'issue'),
    response: { status: 200, body: PublicIssueSchema },
    doc: {
      tag: 'Issues', summary: 'Read an issue',
      description: 'One issue with its status history.',
      parameters: ['IssueId'],
      problems: ['NotFound'], returns: 'The issue, including `history`.',
    },
  },
  listEvents: {
    ...byKey('GET', '/api/v1/events', 'read', 'webhook'),
    response: { status: 200, body: EventNamesSchema },
    doc: {
      tag: 'Events', summary: 'List emitted event names',
      description: `The names of the webhook events emitted today: ${EMITTED_EVENT_TYPES.join(', ')}. Reserved names (${RESERVED_EVENT_TYPES.join(', ')}) may be subscribed to but do not fire, and are not listed.`,
      problems: [], returns: 'Event names.',
    },
  },
  getEventSample: {
    ...byKey('GET', '/api/v1/events/:eventKey/sample', 'read', 'webhook'),
    response: { status: 200, body: EventEnvelopeSchema },
    doc: {
      tag: 'Events', summary: 'A sample delivery of an event',
      description:
        'A representative delivery envelope for the event, built by the same logic as real deliveries. The body is the envelope itself.',
      parameters: ['EventKey'],
      problems: ['NotFound'], returns: 'A sample envelope.',
    },
  },
  listWebhooks: {
    ...byKey('GET', '/api/v1/webhooks', 'webhooks', 'webhook'),
    response: { status: 200, body: z.array(PublicWebhookSchema) },
    doc: {
      tag: 'Webhooks', summary: 'List webhook endpoints',
      description: 'The webhook endpoints of the organisation, whether created here or on the settings page.',
      problems: [], returns: 'The webhook endpoints.',
    },
  },
  createWebhook: {
    ...byKey('POST', '/api/v1/webhooks', 'webhooks', 'webhook'),
    request: { body: CreateWebhookRequestSchema },
    response: { status: 201, body: CreateWebhookResponseSchema },
    doc: {
      tag: 'Webhooks', summary: 'Subscribe a URL',
      description:
        'Creates an enabled webhook endpoint labelled as created via the API (`source: api`), signed and delivered like one created on the settings page. `events` empty or omitted subscribes to every event. The signing `secret` is returned only in this response.',
      problems: BODY_PROBLEMS, returns: 'The endpoint was created.',
    },
  },
  deleteWebhook: {
    ...byKey('DELETE', '/api/v1/webhooks/:id', 'webhooks', 'webhook'),
    response: { status: 204 },
    doc: {
      tag: 'Webhooks', summary: 'Unsubscribe',
      description: 'Removes the webhook endpoint.',
      parameters: ['WebhookId'],
      problems: ['NotFound'], returns: 'The endpoint was removed.',
    },
  },
} satisfies Record<string, Endpoint>;
