import { z } from 'zod';
import { CampaignStatusSchema, IssueSeveritySchema, IssueStatusSchema, IssueTypeSchema } from './enums.ts';

/**
 * Request shapes and the validation rules the spec leaves open (section 7: "Validation rules
 * that cause 422: not shown"). Decisions, documented in docs/api.md:
 * - title, severity and type are required; an issue without them cannot be triaged.
 * - text is trimmed; title 1–200 characters, description up to 10,000.
 * - pageUrl, when given, is an absolute http(s) URL of at most 2,048 characters.
 */
export const MAX_TITLE = 200;
export const MAX_TEXT = 10_000;
export const MAX_URL = 2_048;

export const httpUrl = (max = MAX_URL) =>
  z
    .string({ error: 'Must be a string.' })
    .trim()
    .max(max, `Must be at most ${max} characters.`)
    .refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, 'Must be an absolute http or https URL.');

export const requiredText = (max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'Is required.' : 'Must be a string.') })
    .trim()
    .min(1, 'Must not be empty.')
    .max(max, `Must be at most ${max} characters.`);

export const optionalText = (max: number) =>
  z
    .string({ error: 'Must be a string.' })
    .trim()
    .max(max, `Must be at most ${max} characters.`)
    .nullish()
    .transform((v) => (v === undefined || v === '' ? null : v));

const required = <T extends z.ZodType>(schema: T) =>
  z.unknown().superRefine((v, ctx) => {
    if (v === undefined || v === null) ctx.addIssue({ code: 'custom', message: 'Is required.' });
  }).pipe(schema);

export const CreateIssueRequestSchema = z.strictObject({
  title: requiredText(MAX_TITLE),
  description: optionalText(MAX_TEXT),
  severity: required(IssueSeveritySchema),
  type: required(IssueTypeSchema),
  pageUrl: httpUrl().nullish().transform((v) => v ?? null),
});

const int32 = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number.`)
    .transform(Number)
    .pipe(z.number().min(min, `${name} must be at least ${min}.`).max(max, `${name} must be at most ${max}.`))
    .default(fallback);

export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

export const IssueListQuerySchema = z.object({
  status: IssueStatusSchema.optional(),
  severity: IssueSeveritySchema.optional(),
  page: int32('page', 1, 2_147_483_647, 1),
  pageSize: int32('pageSize', 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE),
});

export const CampaignListQuerySchema = z.object({
  status: CampaignStatusSchema.optional(),
});

export type CreateIssueRequest = z.infer<typeof CreateIssueRequestSchema>;
export type IssueListQuery = z.infer<typeof IssueListQuerySchema>;

/**
 * Body of POST /api/v1/webhooks (spec 2.10, which leaves validation open). Decisions,
 * documented in docs/api.md:
 * - url is required: an absolute http(s) URL of at most 2,048 characters.
 * - events is optional; omitted, null or [] subscribes to every event. Each entry is a
 *   non-empty name; duplicates collapse. Names are not checked against the catalogue, so
 *   reserved names (spec 6.3) are accepted.
 * - name is an optional label of 1–200 characters; omitted or null means no label.
 * - unknown properties are rejected, as for CreateIssueRequest: a misspelt `events` would
 *   otherwise silently subscribe to everything.
 */
export const MAX_WEBHOOK_NAME = 200;

export const CreateWebhookRequestSchema = z.strictObject({
  url: required(httpUrl()),
  events: z
    .array(z.string({ error: 'Must be a string.' }).trim().min(1, 'Must not be empty.'), { error: 'Must be an array of event names.' })
    .nullish()
    .transform((v) => [...new Set(v ?? [])]),
  name: z
    .string({ error: 'Must be a string.' })
    .trim()
    .min(1, 'Must not be empty.')
    .max(MAX_WEBHOOK_NAME, `Must be at most ${MAX_WEBHOOK_NAME} characters.`)
    .nullish()
    .transform((v) => v ?? null),
});

export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequestSchema>;
