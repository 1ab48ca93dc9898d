import { z } from 'zod';
import {
  CampaignStatusSchema,
  GateSchema,
  IssueSeveritySchema,
  IssueStatusSchema,
  IssueTypeSchema,
  ReadinessLevelSchema,
  ScopeSchema,
} from '../enums.ts';
import { EventEnvelopeSchema } from '../events.ts';
import { CreateIssueRequestSchema, CreateWebhookRequestSchema } from '../requests.ts';
import {
  ApiKeyContextSchema,
  CreateIssueResponseSchema,
  CreateWebhookResponseSchema,
  IssueHistoryEntrySchema,
  IssuePageSchema,
  ProblemSchema,
  PublicCampaignSchema,
  PublicIssueSchema,
  PublicIssueSummarySchema,
  PublicWebhookSchema,
  ValidationProblemSchema,
} from '../resources.ts';

/**
 * components.schemas of the OpenAPI document, generated from the zod schemas with
 * `z.toJSONSchema` (JSON Schema 2020-12, the dialect of OpenAPI 3.1). Nothing here restates a
 * shape: this file only names the schemas, adds prose, and normalises zod's output into the
 * idioms OpenAPI tooling reads best (see `normalise`).
 */
export type JsonSchema = Record<string, unknown>;

export const SCHEMA_REF_PREFIX = '#/components/schemas/';
export const ref = (name: string): JsonSchema => ({ $ref: `${SCHEMA_REF_PREFIX}${name}` });

interface Named {
  schema: z.ZodType;
  description: string;
}

/** The enumerations of spec 2.1, one component each; fields and parameters reference them. */
const ENUMS: Record<string, Named> = {
  CampaignStatus: { schema: CampaignStatusSchema, description: 'Status of a campaign (spec 2.1).' },
  IssueStatus: { schema: IssueStatusSchema, description: 'Status of an issue (spec 2.1).' },
  IssueSeverity: { schema: IssueSeveritySchema, description: 'Severity of an issue, most severe first (spec 2.1).' },
  IssueType: { schema: IssueTypeSchema, description: 'Type of an issue (spec 2.1).' },
  Scope: { schema: ScopeSchema, description: 'A permission an API key carries; scopes are independent (spec 5.6).' },
  ReadinessLevel: { schema: ReadinessLevelSchema, description: "The launch policy's verdict on a campaign (spec 2.1)." },
  Gate: { schema: GateSchema, description: 'The launch gate of a campaign, folding in required sign-offs (spec 2.1).' },
};

/** Response bodies: the shapes as services send them (`io: 'output'`). */
const RESPONSES: Record<string, Named> = {
  ApiKeyContext: { schema: ApiKeyContextSchema, description: 'The calling API key and its organisation (spec 2.12).' },
  PublicCampaign: { schema: PublicCampaignSchema, description: 'A campaign with its launch-readiness verdict (spec 2.2).' },
  PublicIssueSummary: { schema: PublicIssueSummarySchema, description: 'An issue as it appears in issue lists (spec 2.3).' },
  IssueHistoryEntry: { schema: IssueHistoryEntrySchema, description: 'One status change of an issue (spec 2.5).' },
  PublicIssue: { schema: PublicIssueSchema, description: 'An issue with its status history (spec 2.4).' },
  IssuePage: {
    schema: IssuePageSchema,
    description: 'One page of issue summaries, most severe first, then by seqNumber (spec 2.6).',
  },
  CreateIssueResponse: { schema: CreateIssueResponseSchema, description: 'The identity of a newly filed issue (spec 2.8).' },
  PublicWebhook: { schema: PublicWebhookSchema, description: 'A webhook endpoint of the organisation (spec 2.9). The signing secret is never listed.' },
  CreateWebhookResponse: {
    schema: CreateWebhookResponseSchema,
    description: 'A newly created webhook endpoint (spec 2.11). `secret` is returned only in this response.',
  },
  EventEnvelope: {
    schema: EventEnvelopeSchema,
    description: 'The body of every webhook delivery and of an event sample (spec 6.1).',
  },
  ProblemDetails: {
    schema: ProblemSchema,
    description: 'RFC 7807 problem body (spec 7). Additional properties may appear.',
  },
  ValidationProblemDetails: {
    schema: ValidationProblemSchema,
    description: 'A problem body with `errors`, mapping a field name to its messages (spec 7).',
  },
};

/** Request bodies: what clients may send (`io: 'input'`). */
const REQUESTS: Record<string, Named> = {
  CreateIssueRequest: {
    schema: CreateIssueRequestSchema,
    description:
      'Body of issue creation (spec 2.7). title, severity and type are required; text is trimmed; no other properties are accepted.',
  },
  CreateWebhookRequest: {
    schema: CreateWebhookRequestSchema,
    description:
      'Body of webhook creation (spec 2.10). Only url is required; events omitted, null or empty subscribes to every event; no other properties are accepted.',
  },
};

/** Prose and annotations for single properties; the shapes themselves come from zod. */
const PROPERTY_NOTES: Record<string, Record<string, JsonSchema>> = {
  PublicCampaign: {
    readinessLevel: { description: "The launch policy's verdict." },
    gate: { description: 'Folds in required sign-offs.' },
  },
  PublicIssueSummary: { seqNumber: { description: 'Per-campaign issue number.' } },
  PublicIssue: {
    seqNumber: { description: 'Per-campaign issue number.' },
    testerEmail: { description: "The reporting tester's e-mail address." },
    history: { description: 'Status changes, oldest first.' },
  },
  IssueHistoryEntry: { from: { description: 'Previous status.' }, to: { description: 'New status.' } },
  IssuePage: {
    total: { description: 'Number of issues matching the filters, over all pages.' },
    hasMore: { description: 'Whether further pages exist.' },
  },
  ApiKeyContext: {},
  PublicWebhook: {
    name: { description: 'Optional label shown on the settings page.' },
    url: { description: 'Delivery target.' },
    events: { description: 'Event names subscribed to; empty or null means every event.' },
    isEnabled: { description: 'False once the endpoint was disabled after 5 consecutive failed deliveries.' },
    source: { description: '`api` for endpoints created through the API, `dashboard` for the settings page.' },
  },
  CreateWebhookResponse: {
    secret: { description: 'Base64-style HMAC-SHA256 signing secret; returned only in this response.' },
  },
  EventEnvelope: {
    id: { description: 'Unique event id; identical across retries of one event.' },
    eventType: { description: 'The event name.' },
    data: { description: 'Event-specific fields, camelCase (spec 6.2).' },
  },
  ProblemDetails: { traceId: { description: 'Quote it to support.' } },
  ValidationProblemDetails: {
    traceId: { description: 'Quote it to support.' },
    errors: { description: 'Field name (a dotted path; `$` for the body itself) → messages.' },
  },
  CreateIssueRequest: {
    title: { description: 'Trimmed; 1–200 characters.' },
    description: { description: 'Trimmed; up to 10,000 characters; empty is stored as null.' },
    pageUrl: { format: 'uri', description: 'An absolute http or https URL of at most 2,048 characters.' },
  },
  CreateWebhookRequest: {
    url: { format: 'uri', description: 'The URL to subscribe: an absolute http or https URL of at most 2,048 characters.' },
    events: { description: 'Event names to subscribe to; omitted, null or empty means every event. Duplicates collapse.' },
    name: { description: 'Optional label, trimmed, 1–200 characters.' },
  },
};

/** Problem bodies carry a plain HTTP status, not an int32 counter (spec 7.2 says "integer"). */
const PLAIN_INTEGER_SCHEMAS = new Set(['ProblemDetails', 'ValidationProblemDetails']);

function generate(entries: Record<string, Named>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, { schema }] of Object.entries({ ...ENUMS, ...entries })) registry.add(schema, { id });
  const result = z.toJSONSchema(registry, {
    io,
    uri: (id) => `${SCHEMA_REF_PREFIX}${id}`,
    override: ({ zodSchema, jsonSchema }) => {
      // `z.unknown().superRefine(presence).pipe(X)` is how requests.ts says "required X" with a
      // friendly message; its input is X, not "anything".
      const def = (zodSchema as unknown as { _zod: { def: { type: string; in?: z.ZodType; out?: z.ZodType } } })._zod.def;
      if (io === 'input' && def.type === 'pipe' && def.in && def.out && (def.in as unknown as { _zod: { def: { type: string } } })._zod.def.type === 'unknown') {
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
        const id = registry.get(def.out)?.id;
        Object.assign(jsonSchema, id ? ref(id) : z.toJSONSchema(def.out, { io: 'input' }));
      }
    },
  });
  return result.schemas as Record<string, JsonSchema>;
}

const SAFE_INTEGER = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

/**
 * Rewrites zod's JSON Schema into OpenAPI 3.1 idioms, recursively:
 * - drops `$schema`/`$id` (the document fixes the dialect; components are addressed by path);
 * - `anyOf: [X, {type: 'null'}]` with an inline X becomes X with `type: [T, 'null']` (and `null`
 *   in its enum); a nullable `$ref` stays `anyOf: [{$ref}, {type: 'null'}]`, the 3.1 way;
 * - zod's integers (bounded to the safe range) become `format: int32`, as the spec types them;
 * - `pattern`s zod adds to `uuid` and `date-time` strings are dropped: the format is the contract.
 */
export function normalise(node: unknown, int32 = true): unknown {
  if (Array.isArray(node)) return node.map((n) => normalise(n, int32));
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === '$id') continue;
    out[key] = key === 'enum' || key === 'required' || key === 'default' ? value : normalise(value, int32);
  }
  if (out.type === 'integer' && out.minimum === SAFE_INTEGER.minimum && out.maximum === SAFE_INTEGER.maximum) {
    delete out.minimum;
    delete out.maximum;
    if (int32) out.format = 'int32';
  }
  if ((out.format === 'uuid' || out.format === 'date-time') && typeof out.pattern === 'string') delete out.pattern;
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const nullIndex = anyOf.findIndex((s) => isJust(s, { type: 'null' }));
    const other = anyOf[1 - nullIndex] as JsonSchema | undefined;
    if (nullIndex >= 0 && other && typeof other.type === 'string' && !('$ref' in other)) {
      delete out.anyOf;
      Object.assign(out, other, { type: [other.type, 'null'] });
      if (Array.isArray(other.enum)) out.enum = [...other.enum, null];
    }
  }
  return out;
}

function isJust(value: unknown, expected: JsonSchema): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const keys = Object.keys(value);
  return keys.length === Object.keys(expected).length && keys.every((k) => (value as JsonSchema)[k] === expected[k]);
}

function annotate(name: string, schema: JsonSchema, description: string): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  for (const [property, note] of Object.entries(PROPERTY_NOTES[name] ?? {})) {
    const target = properties?.[property];
    if (!target) throw new Error(`openapi: ${name}.${property} is annotated but is not a property of the schema`);
    // A note on a $ref'd property would be a sibling of $ref; that is allowed in 3.1.
    Object.assign(target, note);
  }
  return { description, ...schema };
}

/** Every component schema of the document, keyed by name. */
export function buildComponentSchemas(): Record<string, JsonSchema> {
  const output = generate(RESPONSES, 'output');
  const input = generate(REQUESTS, 'input');
  const all: Record<string, JsonSchema> = {};
  const described: Record<string, Named> = { ...ENUMS, ...RESPONSES, ...REQUESTS };
  for (const [name, { description }] of Object.entries(described)) {
    const raw = name in REQUESTS ? input[name] : output[name];
    if (!raw) throw new Error(`openapi: zod produced no schema for ${name}`);
    const schema = normalise(raw, !PLAIN_INTEGER_SCHEMAS.has(name)) as JsonSchema;
    all[name] = annotate(name, schema, description);
  }
  for (const name of Object.keys(ENUMS)) {
    if (JSON.stringify(output[name]) !== JSON.stringify(input[name])) throw new Error(`openapi: ${name} differs between input and output`);
  }
  return all;
}

/**
 * The JSON Schema of one zod field for use outside components (parameters): registered enums
 * become references, everything else is inlined.
 */
export function fieldSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema {
  let inner = schema;
  while (inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
  for (const [name, { schema: candidate }] of Object.entries(ENUMS)) if (candidate === inner) return ref(name);
  return normalise(z.toJSONSchema(schema, { io })) as JsonSchema;
}

const componentOf = (schema: z.ZodType, named: Record<string, Named>) => Object.entries(named).find(([, n]) => n.schema === schema)?.[0];

/**
 * The schema of a request (`input`) or response (`output`) body in an operation: the component
 * the zod schema is registered as, an array of one, or else the schema inlined.
 */
export function bodySchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const named = io === 'input' ? REQUESTS : RESPONSES;
  const name = componentOf(schema, named);
  if (name) return ref(name);
  const item = schema instanceof z.ZodArray ? componentOf(schema.element as z.ZodType, named) : undefined;
  if (item) return { type: 'array', items: ref(item) };
  return fieldSchema(schema, io);
}
