import type { Router } from 'express';
import type { Kysely } from '@preflight/db';
import type { Logger } from '@preflight/log';
import type { SignInLimits } from '../auth/limits.ts';
import type { AuthDeps } from '../auth/sessions.ts';
import type { OidcSettings } from '../config.ts';
import type { ConsoleMetrics } from '../metrics.ts';
import type { SessionStore } from '../sessions/store.ts';
import type { ConsoleDatabase } from '../storage/schema.ts';
import type { Redis } from 'ioredis';

/** What the console's own pages (sign-in, invitations, organisations, SSO) use; built once in app.ts. */
export interface WebDeps extends AuthDeps {
  db: Kysely<ConsoleDatabase>;
  sessions: SessionStore;
  limits: SignInLimits;
  metrics: ConsoleMetrics;
  logger: Logger;
  redis: Redis;
  redisPrefix: string;
  publicOrigin: string;
  oidc: OidcSettings | undefined;
}

/** A group of the console's own routes, relative to /console (like the pages' registrations). */
export type WebRoutes = (router: Router, deps: WebDeps) => void;

/** One form field as a string (a repeated or missing field is undefined). */
export function formField(body: unknown, name: string): string | undefined {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}
