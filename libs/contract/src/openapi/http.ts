import { CampaignListQuerySchema, DEFAULT_PAGE_SIZE, IssueListQuerySchema, MAX_PAGE_SIZE } from '../requests.ts';
import { PublicCampaignSchema } from '../resources.ts';
import { ERROR_KINDS, problemType, type ErrorCode } from '../problems.ts';
import { fieldSchema, ref, type JsonSchema } from './schemas.ts';

/**
 * The reusable HTTP pieces of the document: security schemes, rate-limit headers, parameters
 * and problem responses. Problem titles and type URIs mirror libs/http/src/errors.ts (the only
 * place a status is chosen); libs/contract/test/openapi.test.ts checks they agree.
 */

export const MEDIA = {
  json: 'application/json',
  textJson: 'text/json',
  text: 'text/plain',
  anyJson: 'application/*+json',
  problem: 'application/problem+json',
} as const;

/** Success bodies are offered in these media types (spec 1.5; libs/http sendJson). */
export const RESPONSE_MEDIA_TYPES = [MEDIA.json, MEDIA.textJson, MEDIA.text] as const;
/** Request bodies are accepted in these media types (spec 4; libs/http JSON_MEDIA_TYPES). */
export const REQUEST_MEDIA_TYPES = [MEDIA.json, MEDIA.textJson, MEDIA.anyJson] as const;

export const SECURITY_SCHEMES = {
  BearerApiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'API key (svc_live_… or svc_test_…)',
    description:
      'An organisation API key in `Authorization: Bearer <API_KEY>`. Keys start with `svc_live_` in production and `svc_test_` elsewhere. A missing, unknown or revoked key gets 401.',
  },
  HeaderApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: 'The same organisation API key in `X-Api-Key: <API_KEY>`; either header is accepted.',
  },
} as const;

/** A security requirement accepting either scheme; the scope is listed as the role (3.1 allows this). */
export function securityFor(scope: string | null): Record<string, string[]>[] {
  const roles = scope ? [scope] : [];
  return Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: roles }));
}

const int32 = { type: 'integer', format: 'int32' };

export const HEADERS: Record<string, JsonSchema> = {
  'RateLimit-Policy': {
    description:
      'The quota policy, an IETF draft (draft-ietf-httpapi-ratelimit-headers) structured-field list: the policy name with `q` (requests allowed) and `w` (window in seconds), e.g. `"default";q=600;w=60`.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'The state of the quota, an IETF draft (draft-ietf-httpapi-ratelimit-headers) structured-field list: the policy name with `r` (requests remaining) and `t` (seconds until the oldest request in the sliding window leaves it and quota frees up), e.g. `"default";r=599;t=60`.',
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': { description: 'Requests allowed per window for this key (600 per minute by default).', schema: int32 },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: int32 },
  'X-RateLimit-Reset': {
    description: 'When quota next frees up (the oldest request in the sliding window leaves it), in UTC epoch seconds.',
    schema: { type: 'integer', format: 'int64' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this answer is the stored answer of an earlier request with the same `Idempotency-Key` (nothing was done again); absent on a first answer.',
    schema: { type: 'string', const: 'true' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying; a retry after that is admitted.', schema: int32, required: true },
  'WWW-Authenticate': {
    description: 'The Bearer challenge: `Bearer realm="preflight-api"`, with `error="invalid_token"` when a key was presented but is not valid.',
    schema: { type: 'string' },
    required: true,
  },
};

const RATE_LIMIT_HEADER_NAMES = ['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** The rate-limit headers every authenticated response carries. */
export function rateLimitHeaders(): Record<string, JsonSchema> {
  return Object.fromEntries(RATE_LIMIT_HEADER_NAMES.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** A problem's status and title, from the one catalogue every service answers with (problems.ts), and the usual body and headers. */
const problem = (code: ErrorCode, doc: Omit<ProblemResponse, 'code' | 'status' | 'title' | 'schema' | 'rateLimited'> & Partial<Pick<ProblemResponse, 'schema' | 'rateLimited'>>): ProblemResponse => ({
  code,
  status: ERROR_KINDS[code].status,
  title: ERROR_KINDS[code].title,
  schema: 'ProblemDetails',
  rateLimited: true,
  ...doc,
});

interface ProblemResponse {
  status: number;
  code: ErrorCode;
  title: string;
  description: string;
  detail: string;
  schema: 'ProblemDetails' | 'ValidationProblemDetails';
  errors?: Record<string, string[]>;
  /** Extension members the body carries beyond RFC 7807's. */
  extra?: Record<string, unknown>;
  /** False for 401: without a valid key there is no quota to report. */
  rateLimited: boolean;
}

/** components.responses, one per problem the public API answers with. */
export const PROBLEM_RESPONSES = {
  BadRequest: problem('bad_request', { description: 'A query parameter or the `Idempotency-Key` header is invalid (`type` …/bad-request, with an `errors` map naming each), or the body is not valid JSON (`type` …/malformed-json, title "Malformed JSON.").', detail: 'One or more query parameters are invalid.', errors: { pageSize: ['pageSize must be at most 200.'] } }),
  Unauthorized: problem('unauthorized', { description: 'The API key is missing, malformed, unknown or revoked. No rate-limit headers: there is no key to count against.', detail: 'No API key was provided. Send it as `Authorization: Bearer <key>` or `X-Api-Key: <key>`.', rateLimited: false }),
  Forbidden: problem('forbidden', { description: 'The key does not carry the scope this endpoint requires; `requiredScope` names it. The call still counts against the rate limit.', detail: "The API key does not carry the required scope 'read'.", extra: { requiredScope: 'read' } }),
  NotFound: problem('not_found', { description: "The addressed resource does not exist, belongs to another organisation, or the path id is not a UUID — all three are answered alike.", detail: "No campaign with id '0b9f2f4e-5d7c-4c1e-9a51-3f8a2f1b6c7d' was found." }),
  RequestTimeout: problem('request_timeout', { description: 'The request body did not arrive whole within the read deadline (10 s by default); the connection is closed. Send the body at once.', detail: 'The request body did not arrive within 10000 ms.' }),
  PayloadTooLarge: problem('payload_too_large', { description: 'The request body exceeds the size limit (256 KiB by default).', detail: 'The request body exceeds the limit of 262144 bytes.' }),
  UnsupportedMediaType: problem('unsupported_media_type', { description: 'The body is not sent as application/json, text/json or application/*+json, or uses an unsupported charset.', detail: "Content-Type 'text/xml' is not supported; send application/json, text/json or application/*+json." }),
  ValidationFailed: problem('validation', { description: 'The body fails validation; `errors` maps each offending field (`$` for the body itself) to its messages. Also the answer when an `Idempotency-Key` was already used with a different request (`errors` names `Idempotency-Key`).', detail: 'One or more fields are invalid.', schema: 'ValidationProblemDetails', errors: { title: ['Is required.'], severity: ['Must be one of: Critical, High, Medium, Low, Trivial.'] } }),
  TooManyRequests: problem('rate_limited', { description: 'The key exceeded its rate limit; retry after `Retry-After` seconds.', detail: 'Rate limit of 600 requests per 60 seconds exceeded. Retry after 12 seconds.' }),
  Conflict: problem('conflict', { description: 'A request with the same `Idempotency-Key` is still in progress after the wait (retry after `Retry-After` seconds to get its answer), or was done but its answer was too large to keep for replay (`firstStatus`; it is not run again).', detail: 'A request with this Idempotency-Key is still in progress. Retry after 1 second to get its answer.' }),
  InternalServerError: problem('internal', { description: 'An unexpected error; quote the `traceId` to support.', detail: 'An unexpected error occurred. Quote the traceId to support.' }),
  ServiceUnavailable: problem('upstream_unavailable', { description: 'A service or store behind the API is unavailable (`type` …/upstream-unavailable, or …/dependency-unavailable when keys cannot be checked, then without rate-limit headers, or when a request carries an `Idempotency-Key` and its store is unreachable); nothing was done, retry later.', detail: 'The issue service is unavailable. Try again shortly.', extra: { service: 'issue' } }),
} satisfies Record<string, ProblemResponse>;


export function problemResponseComponents(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [name, p] of Object.entries(PROBLEM_RESPONSES) as [string, ProblemResponse][]) {
    const example: Record<string, unknown> = {
      type: problemType(p.code),
      title: p.title,
      status: p.status,
      detail: p.detail,
      instance: '/api/v1/campaigns/0b9f2f4e-5d7c-4c1e-9a51-3f8a2f1b6c7d/issues',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      ...p.extra,
      ...(p.errors ? { errors: p.errors } : {}),
    };
    const headers: Record<string, JsonSchema> = p.rateLimited ? rateLimitHeaders() : {};
    if (p.status === 429) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    if (p.status === 401) headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
    out[name] = {
      description: p.description,
      ...(Object.keys(headers).length ? { headers } : {}),
      content: { [MEDIA.problem]: { schema: ref(p.schema), example } },
    };
  }
  return out;
}

export const problemRef = (name: keyof typeof PROBLEM_RESPONSES) => ({ $ref: `#/components/responses/${name}` });

const pathId = (what: string): JsonSchema => ({
  name: 'id',
  in: 'path',
  required: true,
  description: `The ${what} id. A malformed UUID is answered like an unknown id: 404.`,
  schema: fieldSchema(PublicCampaignSchema.shape.id),
});

/** A paging parameter: bounds and default from the zod query schema; digits only, so an integer. */
function pagingParameter(name: 'page' | 'pageSize', description: string): JsonSchema {
  const schema = fieldSchema(IssueListQuerySchema.shape[name]);
  return { name, in: 'query', required: false, description, schema: { ...schema, ...int32 } };
}

export const PARAMETERS = {
  CampaignId: pathId('campaign'),
  IssueId: pathId('issue'),
  WebhookId: pathId('webhook endpoint'),
  EventKey: {
    name: 'eventKey',
    in: 'path',
    required: true,
    description: 'An event name, as listed by GET /api/v1/events.',
    schema: { type: 'string' },
    example: 'IssueCreated',
  },
  CampaignStatusFilter: {
    name: 'status',
    in: 'query',
    required: false,
    description: 'Only campaigns in this status.',
    schema: fieldSchema(CampaignListQuerySchema.shape.status),
  },
  IssueStatusFilter: {
    name: 'status',
    in: 'query',
    required: false,
    description: 'Only issues in this status.',
    schema: fieldSchema(IssueListQuerySchema.shape.status),
  },
  IssueSeverityFilter: {
    name: 'severity',
    in: 'query',
    required: false,
    description: 'Only issues of this severity.',
    schema: fieldSchema(IssueListQuerySchema.shape.severity),
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key with the same request (method, path and body) within 24 hours answers the first answer, with `Idempotent-Replayed: true`, and does nothing again. Scoped to the calling key and this operation. The same key with another request is a 422; while the first is in flight a duplicate waits for it (409 if it takes longer than 15 s). 5xx answers are not kept, so a retry after one runs again. Use a fresh random value (a UUID) per operation.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]+$' },
    example: '5f0c8e0e-3b9f-4bb1-a6cf-0d6a4f1d2c77',
  },
  Page: pagingParameter('page', 'Page number, from 1. Below 1 or not a whole number: 400.'),
  PageSize: pagingParameter(
    'pageSize',
    `Issues per page, default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}. Below 1, above ${MAX_PAGE_SIZE} or not a whole number: 400.`,
  ),
} satisfies Record<string, JsonSchema>;

export const parameterRef = (name: keyof typeof PARAMETERS) => ({ $ref: `#/components/parameters/${name}` });
