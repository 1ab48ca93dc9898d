import { z } from 'zod';
import {
  CampaignStatusSchema,
  GateSchema,
  IssueSeveritySchema,
  IssueStatusSchema,
  IssueTypeSchema,
  ReadinessLevelSchema,
  ScopeSchema,
} from './enums.ts';

/**
 * Response shapes of public-api-v1.md section 2. Every listed field is always present; a
 * nullable one is null, never omitted. Services build these objects; contract tests check
 * real responses against the OpenAPI document generated from them.
 */
const uuid = z.uuid();
const dateTime = z.iso.datetime({ offset: true });

export const PublicCampaignSchema = z.object({
  id: uuid,
  name: z.string().nullable(),
  status: CampaignStatusSchema.nullable(),
  siteId: uuid,
  siteName: z.string().nullable(),
  readinessLevel: ReadinessLevelSchema.nullable(),
  gate: GateSchema.nullable(),
  createdAt: dateTime,
});

export const PublicIssueSummarySchema = z.object({
  id: uuid,
  seqNumber: z.number().int(),
  title: z.string().nullable(),
  type: IssueTypeSchema.nullable(),
  severity: IssueSeveritySchema.nullable(),
  status: IssueStatusSchema.nullable(),
  assigneeName: z.string().nullable(),
  pageUrl: z.string().nullable(),
  createdAt: dateTime,
});

export const IssueHistoryEntrySchema = z.object({
  from: IssueStatusSchema.nullable(),
  to: IssueStatusSchema.nullable(),
  reason: z.string().nullable(),
  occurredAt: dateTime,
});

export const PublicIssueSchema = z.object({
  id: uuid,
  seqNumber: z.number().int(),
  campaignId: uuid,
  campaignName: z.string().nullable(),
  siteId: uuid,
  siteName: z.string().nullable(),
  type: IssueTypeSchema.nullable(),
  severity: IssueSeveritySchema.nullable(),
  status: IssueStatusSchema.nullable(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  stepsToReproduce: z.string().nullable(),
  expectedBehavior: z.string().nullable(),
  actualBehavior: z.string().nullable(),
  pageUrl: z.string().nullable(),
  pageTitle: z.string().nullable(),
  browserName: z.string().nullable(),
  browserVersion: z.string().nullable(),
  operatingSystem: z.string().nullable(),
  deviceType: z.string().nullable(),
  screenResolution: z.string().nullable(),
  screenshotUrl: z.string().nullable(),
  assigneeName: z.string().nullable(),
  testerEmail: z.string().nullable(),
  duplicateOfId: uuid.nullable(),
  duplicateOfSeqNumber: z.number().int().nullable(),
  createdAt: dateTime,
  updatedAt: dateTime,
  history: z.array(IssueHistoryEntrySchema).nullable(),
});

export const IssuePageSchema = z.object({
  items: z.array(PublicIssueSummarySchema).nullable(),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  hasMore: z.boolean(),
});

export const CreateIssueResponseSchema = z.object({ id: uuid, seqNumber: z.number().int() });

export const ApiKeyContextSchema = z.object({
  organization: z.object({ id: uuid, name: z.string().nullable() }),
  key: z.object({ id: uuid, name: z.string().nullable(), scopes: z.array(ScopeSchema).nullable() }),
});

export const PublicWebhookSchema = z.object({
  id: uuid,
  name: z.string().nullable(),
  url: z.string().nullable(),
  events: z.array(z.string()).nullable(),
  isEnabled: z.boolean(),
  source: z.enum(['api', 'dashboard']).nullable(),
  createdAt: dateTime,
});

export const CreateWebhookResponseSchema = z.object({
  id: uuid,
  url: z.string().nullable(),
  events: z.array(z.string()).nullable(),
  secret: z.string().nullable(),
});

export const ProblemSchema = z
  .object({
    type: z.string().nullable(),
    title: z.string().nullable(),
    status: z.number().int().nullable(),
    detail: z.string().nullable(),
    instance: z.string().nullable(),
    traceId: z.string().nullable(),
  })
  .catchall(z.unknown());

export const ValidationProblemSchema = ProblemSchema.extend({
  errors: z.record(z.string(), z.array(z.string())),
});

export type PublicCampaign = z.infer<typeof PublicCampaignSchema>;
export type PublicIssueSummary = z.infer<typeof PublicIssueSummarySchema>;
export type PublicIssue = z.infer<typeof PublicIssueSchema>;
export type IssueHistoryEntry = z.infer<typeof IssueHistoryEntrySchema>;
export type IssuePage = z.infer<typeof IssuePageSchema>;
export type CreateIssueResponse = z.infer<typeof CreateIssueResponseSchema>;
export type ApiKeyContext = z.infer<typeof ApiKeyContextSchema>;
export type PublicWebhook = z.infer<typeof PublicWebhookSchema>;
export type CreateWebhookResponse = z.infer<typeof CreateWebhookResponseSchema>;
