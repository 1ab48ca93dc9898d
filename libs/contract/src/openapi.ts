import { EMITTED_EVENT_TYPES, EVENT_DATA_FIELDS, RESERVED_EVENT_TYPES, type EmittedEventType } from './events.ts';
import {
  HEADERS,
  MEDIA,
  PARAMETERS,
  REQUEST_MEDIA_TYPES,
  RESPONSE_MEDIA_TYPES,
  SECURITY_SCHEMES,
  parameterRef,
  problemRef,
  problemResponseComponents,
  rateLimitHeaders,
  securityFor,
  PROBLEM_RESPONSES,
} from './openapi/http.ts';
import { buildComponentSchemas, ref, SCHEMA_REF_PREFIX, type JsonSchema } from './openapi/schemas.ts';
import type { Scope } from './enums.ts';

/**
 * The OpenAPI 3.1 document of the public API (public-api-v1.md), served by the gateway at
 * GET /api/v1/openapi.json. Component schemas are generated from the zod schemas of this
 * package (openapi/schemas.ts); this file lists the operations.
 */

type ProblemName = keyof typeof PROBLEM_RESPONSES;
type Method = 'get' | 'post' | 'delete';

interface Operation {
  method: Method;
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  /** null: any valid key (GET /api/v1/me). */
  scope: Scope | null;
  parameters?: (keyof typeof PARAMETERS)[];
  requestBody?: string;
  success: { status: number; description: string; schema?: JsonSchema };
  /** Problems beyond those every authenticated call can meet (401, 403, 429, 500, 503). */
  problems: ProblemName[];
}

const arrayOf = (schema: JsonSchema): JsonSchema => ({ type: 'array', items: schema });
const BODY_PROBLEMS: ProblemName[] = ['BadRequest', 'RequestTimeout', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed'];

export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/me',
    operationId: 'getMe',
    tag: 'Identity',
    summary: 'The calling key and its organisation',
    description: 'Returns the calling API key (id, name, scopes) and its organisation.',
    scope: null,
    success: { status: 200, description: 'The calling key and its organisation.', schema: ref('ApiKeyContext') },
    problems: [],
  },
  {
    method: 'get',
    path: '/api/v1/campaigns',
    operationId: 'listCampaigns',
    tag: 'Campaigns',
    summary: 'List campaigns',
    description: 'All campaigns of the organisation with their readiness verdicts, newest first. The list is not paged.',
    scope: 'read',
    parameters: ['CampaignStatusFilter'],
    success: { status: 200, description: 'The campaigns, newest first.', schema: arrayOf(ref('PublicCampaign')) },
    problems: ['BadRequest'],
  },
  {
    method: 'get',
    path: '/api/v1/campaigns/{id}/issues',
    operationId: 'listCampaignIssues',
    tag: 'Issues',
    summary: 'List the issues of a campaign',
    description:
      'One page of the issues of a campaign, most severe first (Critical … Trivial), then by seqNumber. `total` counts the issues matching the filters; `hasMore` tells whether further pages exist.',
    scope: 'read',
    parameters: ['CampaignId', 'IssueStatusFilter', 'IssueSeverityFilter', 'Page', 'PageSize'],
    success: { status: 200, description: 'One page of issue summaries.', schema: ref('IssuePage') },
    problems: ['BadRequest', 'NotFound'],
  },
  {
    method: 'post',
    path: '/api/v1/campaigns/{id}/issues',
    operationId: 'createIssue',
    tag: 'Issues',
    summary: 'File an issue',
    description:
      'Files an issue through the same pipeline as the dashboard: it gets the next per-campaign seqNumber, fires `IssueCreated` to webhooks and chat channels and is synced to connected issue trackers. The reporter is recorded as `API key {name}`, the name of the calling key.',
    scope: 'write',
    parameters: ['CampaignId'],
    requestBody: 'CreateIssueRequest',
    success: { status: 201, description: 'The issue was filed.', schema: ref('CreateIssueResponse') },
    problems: [...BODY_PROBLEMS, 'NotFound'],
  },
  {
    method: 'get',
    path: '/api/v1/issues/{id}',
    operationId: 'getIssue',
    tag: 'Issues',
    summary: 'Read an issue',
    description: 'One issue with its status history.',
    scope: 'read',
    parameters: ['IssueId'],
    success: { status: 200, description: 'The issue, including `history`.', schema: ref('PublicIssue') },
    problems: ['NotFound'],
  },
  {
    method: 'get',
    path: '/api/v1/events',
    operationId: 'listEvents',
    tag: 'Events',
    summary: 'List emitted event names',
    description: `The names of the webhook events emitted today: ${EMITTED_EVENT_TYPES.join(', ')}. Reserved names (${RESERVED_EVENT_TYPES.join(', ')}) may be subscribed to but do not fire, and are not listed.`,
    scope: 'read',
    success: {
      status: 200,
      description: 'Event names.',
      schema: { ...arrayOf({ type: 'string' }), examples: [[...EMITTED_EVENT_TYPES]] },
    },
    problems: [],
  },
  {
    method: 'get',
    path: '/api/v1/events/{eventKey}/sample',
    operationId: 'getEventSample',
    tag: 'Events',
    summary: 'A sample delivery of an event',
    description:
      'A representative delivery envelope for the event, built by the same logic as real deliveries. The body is the envelope itself.',
    scope: 'read',
    parameters: ['EventKey'],
    success: { status: 200, description: 'A sample envelope.', schema: ref('EventEnvelope') },
    problems: ['NotFound'],
  },
  {
    method: 'get',
    path: '/api/v1/webhooks',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List webhook endpoints',
    description: 'The webhook endpoints of the organisation, whether created here or on the settings page.',
    scope: 'webhooks',
    success: { status: 200, description: 'The webhook endpoints.', schema: arrayOf(ref('PublicWebhook')) },
    problems: [],
  },
  {
    method: 'post',
    path: '/api/v1/webhooks',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Subscribe a URL',
    description:
      'Creates an enabled webhook endpoint labelled as created via the API (`source: api`), signed and delivered like one created on the settings page. `events` empty or omitted subscribes to every event. The signing `secret` is returned only in this response.',
    scope: 'webhooks',
    requestBody: 'CreateWebhookRequest',
    success: { status: 201, description: 'The endpoint was created.', schema: ref('CreateWebhookResponse') },
    problems: BODY_PROBLEMS,
  },
  {
    method: 'delete',
    path: '/api/v1/webhooks/{id}',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Unsubscribe',
    description: 'Removes the webhook endpoint.',
    scope: 'webhooks',
    parameters: ['WebhookId'],
    success: { status: 204, description: 'The endpoint was removed.' },
    problems: ['NotFound'],
  },
];

const TAGS = [
  { name: 'Identity', description: 'The calling API key.' },
  { name: 'Campaigns', description: 'Campaigns and their launch-readiness verdicts.' },
  { name: 'Issues', description: 'Issues of a campaign: list, read, file.' },
  { name: 'Events', description: 'Names of emitted webhook events and sample deliveries.' },
  { name: 'Webhooks', description: 'Webhook endpoints of the organisation.' },
  { name: 'Contract', description: 'This document.' },
];

function scopeText(scope: Scope | null): string {
  return scope === null ? 'Any valid API key, whatever its scopes.' : `Requires scope \`${scope}\`.`;
}

function content(schema: JsonSchema, mediaTypes: readonly string[]): Record<string, { schema: JsonSchema }> {
  return Object.fromEntries(mediaTypes.map((m) => [m, { schema }]));
}

function operationObject(op: Operation): JsonSchema {
  // Every POST takes an Idempotency-Key (the gateway honours it on all of them).
  const post = op.method === 'post';
  const parameters = [...(op.parameters ?? []), ...(post ? (['IdempotencyKey'] as const) : [])];
  const problems: ProblemName[] = [
    ...op.problems,
    ...(post ? (['Conflict'] as ProblemName[]) : []),
    'Unauthorized',
    ...(op.scope === null ? [] : (['Forbidden'] as ProblemName[])),
    'TooManyRequests',
    'InternalServerError',
    'ServiceUnavailable',
  ];
  const responses: Record<string, JsonSchema> = {
    [String(op.success.status)]: {
      description: op.success.description,
      headers: { ...rateLimitHeaders(), ...(post ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } } : {}) },
      ...(op.success.schema ? { content: content(op.success.schema, RESPONSE_MEDIA_TYPES) } : {}),
    },
  };
  for (const name of problems) {
    const status = String(PROBLEM_RESPONSES[name].status);
    if (responses[status]) throw new Error(`openapi: ${op.operationId} documents ${status} twice`);
    responses[status] = problemRef(name);
  }
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: `${op.description}\n\n${scopeText(op.scope)}`,
    'x-required-scope': op.scope,
    security: securityFor(op.scope),
    ...(parameters.length > 0 ? { parameters: parameters.map((p) => parameterRef(p)) } : {}),
    ...(op.requestBody
      ? { requestBody: { required: true, content: content(ref(op.requestBody), REQUEST_MEDIA_TYPES) } }
      : {}),
    responses: sorted,
  };
}

/** When each emitted event fires (spec 6.2). */
const FIRES_WHEN: Record<EmittedEventType, string> = {
  CampaignLaunched: 'a campaign is launched',
  CampaignClosed: 'a campaign is closed',
  ReportSealed: 'the readiness report is sealed: every required signer has stamped or been waived on one record version',
  TesterCompleted: 'a tester finishes every required task of a campaign (preview sessions excluded)',
  IssueCreated: 'an issue is created from the dashboard or the public API',
  IssueUpdated: 'an issue moves to any non-terminal status',
  IssueClosed: 'an issue is closed, including WontFix and Duplicate',
  RetestRequested: 'a fixed issue is sent back to the reporting tester for retest',
  RetestCompleted: 'a retest concludes (RetestFixed or RetestFailed)',
};

/** Outbound deliveries (spec 6), as OpenAPI 3.1 `webhooks`: what a receiver must accept. */
function webhookObjects(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const event of EMITTED_EVENT_TYPES) {
    out[event] = {
      post: {
        operationId: `receive${event}`,
        tags: ['Events'],
        summary: `${event} delivery`,
        description: `Sent when ${FIRES_WHEN[event]}. \`data\` fields: ${EVENT_DATA_FIELDS[event].join(', ')}. Verify \`X-Service-Signature\` (HMAC-SHA256 of the raw body keyed with the endpoint's secret) before parsing; deduplicate on the envelope \`id\`. Each attempt times out after 10 s; up to 3 attempts with waits of 1 s, 5 s, 30 s; redirects are not followed.`,
        security: [],
        parameters: [
          { name: 'X-Service-Event', in: 'header', required: true, description: 'The event type.', schema: { type: 'string', const: event } },
          { name: 'X-Service-Delivery', in: 'header', required: true, description: 'Unique per delivery attempt.', schema: { type: 'string' } },
          {
            name: 'X-Service-Signature',
            in: 'header',
            required: true,
            description: '`sha256=` and the lowercase hex HMAC-SHA256 digest of the raw body.',
            schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            [MEDIA.json]: {
              schema: { allOf: [ref('EventEnvelope'), { type: 'object', properties: { eventType: { const: event } } }] },
            },
          },
        },
        responses: {
          '2XX': { description: 'Any 2xx response counts as delivered.' },
          default: { description: 'Anything else is a failed attempt; 5 consecutive failed deliveries disable the endpoint.' },
        },
      },
    };
  }
  return out;
}

/** Builds the whole OpenAPI 3.1 document. Pure: a new object on every call. */
export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, JsonSchema>> = {
    '/api/v1/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        tags: ['Contract'],
        summary: 'This OpenAPI document',
        description: 'The machine-readable contract of the public API. No API key and no rate limit.',
        'x-required-scope': null,
        security: [],
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document.',
            headers: { 'Cache-Control': { description: 'Cacheable for 5 minutes.', schema: { type: 'string', examples: ['public, max-age=300'] } } },
            content: content({ type: 'object' }, RESPONSE_MEDIA_TYPES),
          },
        },
      },
    },
  };
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op);

  return {
    openapi: '3.1.0',
    info: {
      title: 'Preflight public API',
      version: 'v1',
      summary: 'Campaigns, issues and webhooks of an organisation.',
      description:
        'A small JSON API under `/api/v1` for an organisation\'s tooling: read campaigns and their launch-readiness verdicts, list and read issues, file issues, subscribe URLs to webhook events. Authenticate with an organisation API key (`Authorization: Bearer` or `X-Api-Key`); each key carries the scopes `read`, `write` and/or `webhooks`. Every key is limited to 600 requests per minute. Errors are `application/problem+json`.',
    },
    servers: [{ url: '/', description: "The API host (the operator's own host when self-hosted)." }],
    security: securityFor(null),
    tags: TAGS,
    paths,
    webhooks: webhookObjects(),
    components: {
      schemas: buildComponentSchemas(),
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: problemResponseComponents(),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/**
 * The JSON Schema (2020-12, standalone: component references rewritten to `$defs`) a response
 * body must satisfy, for ajv: `ajv.compile(responseSchemaFor(doc, 'GET', '/api/v1/issues/x', 200)!)`.
 * `path` may be concrete (`/api/v1/issues/<uuid>?x=1`) or templated. Returns null when the
 * documented response has no body (204); throws when the operation or status is undocumented.
 */
export function responseSchemaFor(
  doc: Record<string, unknown>,
  method: string,
  path: string,
  status: number,
  mediaType?: string,
): Record<string, unknown> | null {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, JsonSchema>>;
  const bare = path.split('?')[0] ?? path;
  const template =
    bare in paths
      ? bare
      : Object.keys(paths).find((t) => new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
  const operation = template ? paths[template]?.[method.toLowerCase()] : undefined;
  if (!template || !operation) throw new Error(`openapi: no operation ${method.toUpperCase()} ${path}`);
  const responses = operation.responses as Record<string, JsonSchema>;
  let response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  if (!response) throw new Error(`openapi: ${method.toUpperCase()} ${template} documents no ${status} response`);
  const components = (doc.components ?? {}) as Record<string, Record<string, JsonSchema>>;
  if (typeof response.$ref === 'string') response = components.responses?.[response.$ref.split('/').pop() ?? ''] ?? {};
  const contentMap = response.content as Record<string, { schema: JsonSchema }> | undefined;
  if (!contentMap) return null;
  const wanted = mediaType?.split(';')[0]?.trim().toLowerCase();
  const entry = wanted ? contentMap[wanted] : Object.values(contentMap)[0];
  if (!entry) throw new Error(`openapi: ${method.toUpperCase()} ${template} ${status} is not documented as ${wanted}`);
  const toDefs = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(toDefs);
    if (typeof node !== 'object' || node === null) return node;
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith(SCHEMA_REF_PREFIX) ? `#/$defs/${v.slice(SCHEMA_REF_PREFIX.length)}` : toDefs(v),
      ]),
    );
  };
  return { ...(toDefs(entry.schema) as JsonSchema), $defs: toDefs(components.schemas ?? {}) as JsonSchema };
}
