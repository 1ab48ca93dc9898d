import { EMITTED_EVENT_TYPES, EVENT_DATA_FIELDS, type EmittedEventType } from './events.ts';
import type { Endpoint, ProblemName } from './manifest/endpoint.ts';
import { openApiPath } from './manifest/endpoint.ts';
import { PUBLIC_ENDPOINTS } from './manifest/public.ts';
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
import { bodySchema, buildComponentSchemas, ref, SCHEMA_REF_PREFIX, type JsonSchema } from './openapi/schemas.ts';

/**
 * The OpenAPI 3.1 document of the public API (public-api-v1.md), served by the gateway at
 * GET /api/v1/openapi.json. Operations come from the route manifest's public entries
 * (manifest/public.ts), component schemas from the zod schemas of this package (openapi/schemas.ts).
 */

const TAGS = [
  { name: 'Identity', description: 'The calling API key.' },
  { name: 'Campaigns', description: 'Campaigns and their launch-readiness verdicts.' },
  { name: 'Issues', description: 'Issues of a campaign: list, read, file.' },
  { name: 'Events', description: 'Names of emitted webhook events and sample deliveries.' },
  { name: 'Webhooks', description: 'Webhook endpoints of the organisation.' },
  { name: 'Contract', description: 'This document.' },
];

/** The scope an operation documents: null for any valid key and for no key at all. */
const requiredScope = (e: Endpoint): string | null => (e.auth === 'api-key' && e.scope !== 'any' ? e.scope : null);

function scopeText(scope: string | null): string {
  return scope === null ? 'Any valid API key, whatever its scopes.' : `Requires scope \`${scope}\`.`;
}

function content(schema: JsonSchema, mediaTypes: readonly string[]): Record<string, { schema: JsonSchema }> {
  return Object.fromEntries(mediaTypes.map((m) => [m, { schema }]));
}

/** The success response: its body's schema from the manifest (or the doc's override). */
function successResponse(e: Endpoint, headers: Record<string, JsonSchema>): JsonSchema {
  const body = e.doc?.responseSchema ?? (e.response?.body ? bodySchema(e.response.body, 'output') : undefined);
  return { description: e.doc!.returns, headers, ...(body ? { content: content(body, RESPONSE_MEDIA_TYPES) } : {}) };
}

/** An unauthenticated operation (the document itself): no key, no rate limit, no problems listed. */
function openOperation(id: string, e: Endpoint): JsonSchema {
  const doc = e.doc!;
  return {
    operationId: id,
    tags: [doc.tag],
    summary: doc.summary,
    description: doc.description,
    'x-required-scope': null,
    security: [],
    responses: { [String(e.response?.status ?? 200)]: successResponse(e, doc.responseHeaders ?? {}) },
  };
}

function operationObject(id: string, e: Endpoint): JsonSchema {
  if (e.auth === 'none') return openOperation(id, e);
  const doc = e.doc!;
  const scope = requiredScope(e);
  // Every POST takes an Idempotency-Key (the gateway honours it on all of them).
  const post = e.method === 'POST';
  const parameters = [...(doc.parameters ?? []), ...(post ? (['IdempotencyKey'] as const) : [])];
  const problems: ProblemName[] = [
    ...doc.problems,
    ...(post ? (['Conflict'] as ProblemName[]) : []),
    'Unauthorized',
    ...(scope === null ? [] : (['Forbidden'] as ProblemName[])),
    'TooManyRequests',
    'InternalServerError',
    'ServiceUnavailable',
  ];
  const headers = { ...rateLimitHeaders(), ...(post ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } } : {}) };
  const responses: Record<string, JsonSchema> = { [String(e.response?.status ?? 200)]: successResponse(e, headers) };
  for (const name of problems) {
    const status = String(PROBLEM_RESPONSES[name].status);
    if (responses[status]) throw new Error(`openapi: ${id} documents ${status} twice`);
    responses[status] = problemRef(name);
  }
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return {
    operationId: id,
    tags: [doc.tag],
    summary: doc.summary,
    description: `${doc.description}\n\n${scopeText(scope)}`,
    'x-required-scope': scope,
    security: securityFor(scope),
    ...(parameters.length > 0 ? { parameters: parameters.map((p) => parameterRef(p)) } : {}),
    ...(e.request?.body ? { requestBody: { required: true, content: content(bodySchema(e.request.body, 'input'), REQUEST_MEDIA_TYPES) } } : {}),
    responses: sorted,
  };
}

/** The document's `paths`, one operation per public manifest entry. */
function pathObjects(): Record<string, Record<string, JsonSchema>> {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [id, e] of Object.entries(PUBLIC_ENDPOINTS) as Array<[string, Endpoint]>) {
    if (!e.doc) throw new Error(`openapi: public endpoint ${id} has no doc`);
    (paths[openApiPath(e.path)] ??= {})[e.method.toLowerCase()] = operationObject(id, e);
  }
  return paths;
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
  const paths = pathObjects();

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
