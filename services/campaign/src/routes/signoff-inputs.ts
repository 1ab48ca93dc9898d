import { z } from 'zod';
import { optionalText, requiredText } from '@preflight/contract';

/** Request bodies of the sign-off and tester endpoints; unknown properties are 422. */

export const MAX_PERSON_NAME = 200;
export const MAX_EMAIL = 320;
export const MAX_NOTE = 1_000;
export const MAX_TASK_TITLE = 200;
export const MAX_VERDICT = 200;

const required = (issue: { input: unknown }) => (issue.input === undefined || issue.input === null ? 'Is required.' : undefined);

export const email = () => requiredText(MAX_EMAIL).pipe(z.email('Must be an e-mail address.'));

export const PersonSchema = z.strictObject({ name: requiredText(MAX_PERSON_NAME), email: email() });

const version = z
  .number({ error: (issue) => required(issue) ?? 'Must be a whole number.' })
  .int('Must be a whole number.')
  .min(1, 'Must be at least 1.')
  .max(2_147_483_647, 'Must be at most 2147483647.');

const signerId = z.uuid({ error: (issue) => required(issue) ?? 'Must be a UUID.' });

export const StampSchema = z.strictObject({
  signerId,
  version,
  decision: z.enum(['approve', 'reject'], { error: (issue) => required(issue) ?? 'Must be one of: approve, reject.' }),
  note: optionalText(MAX_NOTE),
});

export const WaiverSchema = z.strictObject({ signerId, version, reason: optionalText(MAX_NOTE) });

export const CreateTaskSchema = z.strictObject({
  title: requiredText(MAX_TASK_TITLE),
  required: z.boolean({ error: (issue) => required(issue) ?? 'Must be true or false.' }),
});

export const CreateTesterSchema = PersonSchema.extend({
  preview: z
    .boolean({ error: 'Must be true or false.' })
    .nullish()
    .transform((v) => v ?? false),
});

export const CompleteTaskSchema = z.strictObject({ verdict: optionalText(MAX_VERDICT) });
