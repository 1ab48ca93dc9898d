import { z } from 'zod';

/**
 * Field builders for environment variables. Every variable arrives as a string (or not at all),
 * so each builder coerces and explains itself in the one line an operator sees at start-up.
 */
export const env = {
  string: (fallback?: string) => (fallback === undefined ? z.string().min(1) : z.string().min(1).default(fallback)),

  optionalString: () => z.string().min(1).optional(),

  port: (fallback: number) =>
    z.coerce
      .number({ message: 'must be a TCP port number' })
      .int('must be a whole number')
      .min(0, 'must be between 0 and 65535')
      .max(65535, 'must be between 0 and 65535')
      .default(fallback),

  int: (fallback: number, opts: { min?: number; max?: number } = {}) => {
    let schema = z.coerce.number({ message: 'must be a number' }).int('must be a whole number');
    if (opts.min !== undefined) schema = schema.min(opts.min, `must be at least ${opts.min}`);
    if (opts.max !== undefined) schema = schema.max(opts.max, `must be at most ${opts.max}`);
    return schema.default(fallback);
  },

  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),

  url: (protocols: string[], fallback?: string) => {
    const schema = z.string().refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol.replace(/:$/, ''));
        } catch {
          return false;
        }
      },
      { message: `must be a ${protocols.map((p) => `${p}://`).join(' or ')} URL` },
    );
    return fallback === undefined ? schema : schema.default(fallback);
  },

  oneOf: <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
    z.enum(values, { message: `must be one of ${values.join(', ')}` }).default(fallback as never),

  /** A Postgres identifier we are willing to interpolate into DDL (schema names). */
  identifier: (fallback: string) =>
    z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier (a-z, 0-9, _)')
      .default(fallback),
};
