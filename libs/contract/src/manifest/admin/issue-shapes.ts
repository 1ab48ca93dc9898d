import { z } from 'zod';
import { PublicIssueSchema } from '../../resources.ts';
import { CreateIssueRequestSchema, MAX_TEXT, httpUrl, optionalText } from '../../requests.ts';
import { duplicateOfRule, issueStatusChangeFields } from './issue-status-change.ts';

/** Request and response shapes of the issue service's admin entries (admin/issue.ts; admin-api-v1.md, "Issues"). */

const SHORT_TEXT = 200;
const MAX_EMAIL = 320;
const MAX_ASSIGNEE = 200;

/**
 * Every writable field of the issue detail. The public request's rules hold for the fields both
 * share; the rest are optional text, screenshotUrl an http(s) URL and testerEmail an e-mail address.
 */
export const AdminCreateIssueRequestSchema = CreateIssueRequestSchema.extend({
  stepsToReproduce: optionalText(MAX_TEXT),
  expectedBehavior: optionalText(MAX_TEXT),
  actualBehavior: optionalText(MAX_TEXT),
  pageTitle: optionalText(500),
  browserName: optionalText(SHORT_TEXT),
  browserVersion: optionalText(SHORT_TEXT),
  operatingSystem: optionalText(SHORT_TEXT),
  deviceType: optionalText(SHORT_TEXT),
  screenResolution: optionalText(SHORT_TEXT),
  screenshotUrl: httpUrl().nullish().transform((v) => v ?? null),
  testerEmail: z
    .string({ error: 'Must be a string.' })
    .trim()
    .max(MAX_EMAIL, `Must be at most ${MAX_EMAIL} characters.`)
    .pipe(z.email('Must be an e-mail address.'))
    .nullish()
    .transform((v) => v ?? null),
});

/** `{to, reason?, duplicateOfId?}` (duplicateOfId exactly when `to` is Duplicate). */
export const AdminChangeIssueStatusRequestSchema = z.strictObject(issueStatusChangeFields).superRefine(duplicateOfRule);

/** `assigneeName` must be sent: null unassigns, so leaving it out is a mistake, not a no-op. */
export const AdminSetAssigneeRequestSchema = z.strictObject({
  assigneeName: z
    .string({ error: (issue) => (issue.input === undefined ? 'Is required; send null to unassign.' : 'Must be a string or null.') })
    .trim()
    .min(1, 'Must not be empty; send null to unassign.')
    .max(MAX_ASSIGNEE, `Must be at most ${MAX_ASSIGNEE} characters.`)
    .nullable(),
});

/** Every admin issue answer: the public detail plus who filed it. */
export const AdminIssueSchema = PublicIssueSchema.extend({ reporter: z.string() });

export type AdminIssue = z.infer<typeof AdminIssueSchema>;
