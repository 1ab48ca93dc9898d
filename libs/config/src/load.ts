import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once, at start. Each key of `shape` is the variable's name; a bad or
 * missing value becomes one line naming that variable, so an operator can fix it without
 * reading code. With `exitOnError` (the default for services) the process stops right there.
 */
export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  opts: { source?: NodeJS.ProcessEnv | Record<string, string | undefined>; exitOnError?: boolean } = {},
): z.infer<z.ZodObject<S>> {
  const source = opts.source ?? process.env;
  // Empty strings count as unset, so `FOO=` falls back to the default instead of failing oddly.
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(shape)) {
    const value = source[key];
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const result = z.object(shape).safeParse(cleaned);
  if (result.success) return result.data;

  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? '(environment)');
    // A field may say where its value comes from (zod `.describe`): said with the missing setting.
    const where = (shape[name] as z.ZodType | undefined)?.description;
    const message = issue.code === 'invalid_type' && cleaned[name] === undefined ? `is required but not set${where ? `: ${where}` : ''}` : issue.message;
    return `configuration error: ${name} ${message}`;
  });
  if (opts.exitOnError === false) throw new ConfigError(problems);
  for (const line of problems) process.stderr.write(`${line}\n`);
  process.exit(78); // EX_CONFIG
}
