import { z } from 'zod';
import { GateSchema, IssueSeveritySchema, ReadinessLevelSchema } from '../../enums.ts';
import { httpUrl, optionalText, requiredText } from '../../requests.ts';

/*
 * Request and response bodies of the campaign service's admin entries (admin/campaign.ts;
 * admin-api-v1.md "Sites and campaigns", "Launch sign-off", "Testers"). Request objects are
 * strict: an unknown property is a 422 naming it.
 */

const uuid = z.uuid();
const dateTime = z.iso.datetime({ offset: true });
const count = z.number().int().nonnegative();

const MAX_NAME = 200;
const MAX_EMAIL = 320;
const MAX_NOTE = 1_000;
const MAX_VERDICT = 200;
/** Upper bound of a threshold's `maxOpen`: a sanity limit of the API, not a business rule. */
const MAX_OPEN_LIMIT = 100_000;

/** 'Is required.' for a missing or null field, else undefined (the field's own message). */
const requiredMessage = (issue: { input: unknown }) => (issue.input === undefined || issue.input === null ? 'Is required.' : undefined);

// --- Sites and campaigns ---

export const AdminCreateSiteRequestSchema = z.strictObject({
  name: requiredText(MAX_NAME),
  url: httpUrl()
    .nullish()
    .transform((v) => v ?? null),
});

export const AdminSiteSchema = z.object({ id: uuid, name: z.string(), url: z.string().nullable(), createdAt: dateTime });

export const AdminCreateCampaignRequestSchema = z.strictObject({ name: requiredText(MAX_NAME) });

/** Statuses an operator can ask for; Draft is only ever a starting point. */
const TARGET_STATUSES = ['Active', 'Paused', 'Closed'] as const;

/** Where the lifecycle allows the move from the current status is the service's to decide (409 otherwise). */
export const AdminChangeCampaignStatusRequestSchema = z.strictObject({
  to: z.enum(TARGET_STATUSES, { error: (issue) => requiredMessage(issue) ?? `Must be one of: ${TARGET_STATUSES.join(', ')}.` }),
  reason: optionalText(MAX_NOTE),
});

// --- Launch policy ---

/** Only a missing object is 'Is required.'; a null one gets zod's own message. */
const requiredObject = { error: (issue: { input: unknown }) => (issue.input === undefined ? 'Is required.' : undefined) };

/** "More than `maxOpen` open issues of severity `minSeverity` or worse." */
const AdminThresholdSchema = z.strictObject(
  {
    minSeverity: IssueSeveritySchema,
    maxOpen: z
      .number({ error: (issue) => (issue.input === undefined ? 'Is required.' : 'Must be a whole number.') })
      .int('Must be a whole number.')
      .min(0, 'Must be at least 0.')
      .max(MAX_OPEN_LIMIT, `Must be at most ${MAX_OPEN_LIMIT}.`),
  },
  requiredObject,
);

/**
 * A campaign's launch thresholds, read whole and replaced whole (every field required). The
 * service also refuses an AtRisk threshold more severe than the DoNotLaunch one (a 422 on
 * `atRisk.minSeverity`; domain/launch-policy.ts).
 */
export const AdminLaunchPolicySchema = z.strictObject({ doNotLaunch: AdminThresholdSchema, atRisk: AdminThresholdSchema }, requiredObject);

// --- Launch sign-off ---

const email = () => requiredText(MAX_EMAIL).pipe(z.email('Must be an e-mail address.'));

/** A signer or a tester as given: `{name, email}`. */
const AdminPersonSchema = z.strictObject({ name: requiredText(MAX_NAME), email: email() });

export const AdminAddSignerRequestSchema = AdminPersonSchema;

export const AdminSignerSchema = z.object({ id: uuid, name: z.string(), email: z.string(), createdAt: dateTime });

/** A report version named by a stamp or waiver. */
const reportVersion = z
  .number({ error: (issue) => requiredMessage(issue) ?? 'Must be a whole number.' })
  .int('Must be a whole number.')
  .min(1, 'Must be at least 1.')
  .max(2_147_483_647, 'Must be at most 2147483647.');

const signerId = z.uuid({ error: (issue) => requiredMessage(issue) ?? 'Must be a UUID.' });

const SignOffDecisionSchema = z.enum(['approve', 'reject'], { error: (issue) => requiredMessage(issue) ?? 'Must be one of: approve, reject.' });

export const AdminAddStampRequestSchema = z.strictObject({ signerId, version: reportVersion, decision: SignOffDecisionSchema, note: optionalText(MAX_NOTE) });

export const AdminAddWaiverRequestSchema = z.strictObject({ signerId, version: reportVersion, reason: optionalText(MAX_NOTE) });

/** A stamp (with a decision) or a waiver (without; its reason is the note) of one signer on one version. */
export const AdminReportEntrySchema = z.object({
  signerId: uuid,
  version: z.number().int(),
  kind: z.enum(['stamp', 'waiver']),
  decision: SignOffDecisionSchema.nullable(),
  note: z.string().nullable(),
  at: dateTime,
});

/** The current version, its seal and counts (of the current version), and every entry of every version, oldest first. */
export const AdminReportSchema = z.object({
  version: z.number().int(),
  readinessLevel: ReadinessLevelSchema,
  gate: GateSchema,
  sealState: z.enum(['open', 'sealed']),
  sealedVersion: z.number().int().nullable(),
  requiredCount: count,
  signedCount: count,
  waivedCount: count,
  entries: z.array(AdminReportEntrySchema),
});

// --- Testers ---

export const AdminCreateTaskRequestSchema = z.strictObject({
  title: requiredText(MAX_NAME),
  required: z.boolean({ error: (issue) => requiredMessage(issue) ?? 'Must be true or false.' }),
});

export const AdminTaskSchema = z.object({ id: uuid, title: z.string(), required: z.boolean() });

export const AdminCreateTesterRequestSchema = AdminPersonSchema.extend({
  preview: z
    .boolean({ error: 'Must be true or false.' })
    .nullish()
    .transform((v) => v ?? false),
});

/** `id` is the campaignTesterId of events. */
export const AdminTesterSchema = z.object({
  id: uuid,
  name: z.string(),
  email: z.string(),
  preview: z.boolean(),
  status: z.enum(['Invited', 'Started', 'Completed']),
});

/** The body is optional: none is `{}`. */
export const AdminCompleteTaskRequestSchema = z.strictObject({ verdict: optionalText(MAX_VERDICT) });

/** A tester with its latest verdict and the tasks it has completed, in the order first done. */
export const AdminTesterProgressSchema = AdminTesterSchema.extend({
  verdict: z.string().nullable(),
  completedAt: dateTime.nullable(),
  completedTasks: z.array(AdminTaskSchema.extend({ verdict: z.string().nullable(), completedAt: dateTime })),
});

export type AdminReport = z.infer<typeof AdminReportSchema>;
export type AdminReportEntry = z.infer<typeof AdminReportEntrySchema>;
export type AdminTester = z.infer<typeof AdminTesterSchema>;
