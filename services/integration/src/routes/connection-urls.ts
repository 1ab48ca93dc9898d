import type { FieldErrors } from '@preflight/http';
import { providerOf } from '../providers/index.ts';
import type { ConnectionKind } from '../providers/provider.ts';
import type { RouteContext } from './context.ts';

/** The field of `config` or `credentials` holding `url`, to name it in the 422. */
function fieldOf(url: string, parts: { config: Record<string, unknown>; credentials: Record<string, unknown> }): string {
  for (const [part, values] of Object.entries(parts)) {
    for (const [key, value] of Object.entries(values)) if (value === url) return `${part}.${key}`;
  }
  return 'config';
}

/**
 * The webhook-target address rules on every URL the connection will call (a provider's own
 * public API passes; a private or loopback address does not, unless private targets are allowed).
 */
export async function connectionUrlErrors(ctx: RouteContext, kind: ConnectionKind, parts: { config: Record<string, unknown>; credentials: Record<string, unknown> }): Promise<FieldErrors> {
  const errors: FieldErrors = Object.create(null);
  for (const url of providerOf(kind).urls(parts.config, parts.credentials)) {
    const problems = await ctx.targets.check(url);
    if (problems.length > 0) (errors[fieldOf(url, parts)] ??= []).push(...problems);
  }
  return errors;
}
