import { z } from 'zod';
import { parsePublicKeys, parseSigningKey } from './keys.ts';

/** Where the keys come from, said when one is missing. */
const FROM = 'generate the keys with `npx tsx scripts/service-auth-keys.ts` (docs/operations.md, "Service-to-service keys"); `npm start` keeps its own';

/** A zod field whose transform parses the value, and reports a bad one without quoting it. */
const parsed = <T>(parse: (value: string) => T) =>
  z
    .string()
    .transform((value, ctx) => {
      try {
        return parse(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    })
    .describe(FROM);

/** The signing key alone: the gateway calls services but no service calls it. */
export const serviceSigningConfigShape = (service: string) => ({
  /** This service's Ed25519 signing key, `kid:base64(32-byte seed)` (docs/operations.md, "Service-to-service keys"). */
  SERVICE_AUTH_KEY: parsed((value) => parseSigningKey(service, value)),
});

/** A service port's keys: its own signing key and the public keys of every service it trusts. */
export const serviceAuthConfigShape = (service: string) => ({
  ...serviceSigningConfigShape(service),
  /** `service:kid:base64(32-byte public key),…`: every key a caller may sign with (a ring: rotation adds before it removes). */
  SERVICE_AUTH_PUBLIC_KEYS: parsed(parsePublicKeys),
});
