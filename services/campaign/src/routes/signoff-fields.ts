import { z } from 'zod';
import { requiredText } from '@preflight/contract';

/** Request fields shared by the sign-off and tester endpoints; each endpoint's schema is in its own file. */

const MAX_PERSON_NAME = 200;
const MAX_EMAIL = 320;
export const MAX_NOTE = 1_000;

/** 'Is required.' for a missing or null field, else undefined (the field's own message). */
export const requiredMessage = (issue: { input: unknown }) => (issue.input === undefined || issue.input === null ? 'Is required.' : undefined);

const email = () => requiredText(MAX_EMAIL).pipe(z.email('Must be an e-mail address.'));

/** A signer or a tester: `{name, email}`, unknown properties 422. */
export const PersonSchema = z.strictObject({ name: requiredText(MAX_PERSON_NAME), email: email() });

/** A report version named by a stamp or waiver. */
export const version = z
  .number({ error: (issue) => requiredMessage(issue) ?? 'Must be a whole number.' })
  .int('Must be a whole number.')
  .min(1, 'Must be at least 1.')
  .max(2_147_483_647, 'Must be at most 2147483647.');

export const signerId = z.uuid({ error: (issue) => requiredMessage(issue) ?? 'Must be a UUID.' });
