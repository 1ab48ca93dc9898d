import { z } from 'zod';

export const GITHUB_API_URL = 'https://api.github.com';

/**
 * Owners are users or organisations: letters, digits and hyphens, up to 39 characters, not
 * starting with a hyphen. Underscores are let through for Enterprise Managed Users
 * (`jdoe_acme`) and GitHub Enterprise Server accounts.
 */
const OWNER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$/;
/** Repository names: letters, digits, `.`, `_` and `-`, up to 100 characters, not `.` or `..`. */
const REPO = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}$/;

/** A field's message: "Is required." when it is missing, else what it must be. */
const must = (text: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'Is required.' : text);

function isApiBaseUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.search && !url.hash;
}

const objectError = (properties: string, required: string) => (issue: { code?: string }) =>
  issue.code === 'unrecognized_keys' ? `Must have no properties besides ${properties}.` : `Must be an object with ${required}.`;

export const githubConfigSchema = z.strictObject(
  {
    owner: z.string({ error: must('Must be a GitHub user or organisation name.') }).regex(OWNER, 'Must be a GitHub user or organisation name.'),
    repo: z.string({ error: must('Must be a GitHub repository name.') }).regex(REPO, 'Must be a GitHub repository name.'),
    apiBaseUrl: z
      .string({ error: 'Must be an absolute http(s) URL.' })
      .refine(isApiBaseUrl, 'Must be an absolute http(s) URL without credentials, query or fragment (https://host/api/v3 for GitHub Enterprise Server).')
      .optional(),
    labels: z
      .array(z.string({ error: 'Must be a label name.' }).trim().min(1, 'Must not be empty.').max(50, 'Must be at most 50 characters.'), {
        error: 'Must be a list of label names.',
      })
      .max(20, 'Must be at most 20 labels.')
      .optional(),
  },
  { error: objectError('owner, repo, apiBaseUrl and labels', 'owner and repo') },
);

export const githubCredentialsSchema = z.strictObject(
  {
    token: z
      .string({ error: must('Must be a GitHub token.') })
      .min(1, 'Must not be empty.')
      .max(255, 'Must be at most 255 characters.')
      .regex(/^[\x21-\x7e]+$/, 'Must be a GitHub token (no spaces or special characters).'),
  },
  { error: objectError('token', 'token') },
);

export type GithubConfig = z.infer<typeof githubConfigSchema>;
export type GithubCredentials = z.infer<typeof githubCredentialsSchema>;

/** The REST API root the connection calls, without a trailing slash. */
export const apiBaseOf = (config: GithubConfig): string => (config.apiBaseUrl ?? GITHUB_API_URL).replace(/\/+$/, '');

/** `owner/repo`, as GitHub names the repository. */
export const repoNameOf = (config: GithubConfig): string => `${config.owner}/${config.repo}`;
