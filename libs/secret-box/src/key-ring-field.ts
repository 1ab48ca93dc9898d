import { z } from 'zod';
import { parseKeyRing } from './secret-box.ts';

/** A key-ring environment variable (`id:base64,id:base64,…`) for a service's config shape. */
export const keyRingField = () =>
  z.string().transform((value, ctx) => {
    try {
      return parseKeyRing(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });
