import { z } from 'zod';

/** Enumerations of public-api-v1.md section 2.1; the strings are the dashboard's own. */
export const CAMPAIGN_STATUSES = ['Draft', 'Active', 'Paused', 'Closed'] as const;
export const ISSUE_STATUSES = [
  'New',
  'Acknowledged',
  'InProgress',
  'Fixed',
  'RetestRequested',
  'RetestFixed',
  'RetestFailed',
  'Closed',
  'WontFix',
  'Duplicate',
] as const;
/** Most severe first: the order issue lists are sorted in. */
export const ISSUE_SEVERITIES = ['Critical', 'High', 'Medium', 'Low', 'Trivial'] as const;
export const ISSUE_TYPES = ['Bug', 'UxFeedback', 'ContentError', 'PerformanceIssue', 'AccessibilityIssue', 'Other'] as const;
export const SCOPES = ['read', 'write', 'webhooks'] as const;
export const READINESS_LEVELS = ['ReadyToLaunch', 'ReadyWithIssues', 'AtRisk', 'DoNotLaunch'] as const;
export const GATES = ['cleared', 'awaiting-signoff', 'not-cleared'] as const;

export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export type IssueStatus = (typeof ISSUE_STATUSES)[number];
export type IssueSeverity = (typeof ISSUE_SEVERITIES)[number];
export type IssueType = (typeof ISSUE_TYPES)[number];
export type Scope = (typeof SCOPES)[number];
export type ReadinessLevel = (typeof READINESS_LEVELS)[number];
export type Gate = (typeof GATES)[number];

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: () => `Must be one of: ${values.join(', ')}.` });

export const CampaignStatusSchema = oneOf(CAMPAIGN_STATUSES);
export const IssueStatusSchema = oneOf(ISSUE_STATUSES);
export const IssueSeveritySchema = oneOf(ISSUE_SEVERITIES);
export const IssueTypeSchema = oneOf(ISSUE_TYPES);
export const ScopeSchema = oneOf(SCOPES);
export const ReadinessLevelSchema = oneOf(READINESS_LEVELS);
export const GateSchema = oneOf(GATES);

/** Sort rank of a severity: 0 is the most severe. */
export const SEVERITY_RANK = {
  Critical: 0,
  High: 1,
  Medium: 2,
  Low: 3,
  Trivial: 4,
} as const satisfies Record<IssueSeverity, number>;
