import type { Response, Router } from 'express';
import type { VNode } from 'preact';
import type { MemberRole } from '@preflight/http';
import type { Logger } from '@preflight/log';
import { bindMember, type AdminFetch, type MemberAdminFetch } from '../gateway-client/fetch.ts';
import { sendHtml } from '../http/security.ts';
import { sessionOf } from '../http/session.ts';
import { render, renderFragment } from '../views/layout.tsx';

/**
 * The contract between the console's core and its pages (services/console/src/pages/*).
 *
 * A page module exports a `PageRegistration`; pages/index.ts lists them and app.ts mounts them
 * on the `/console` router after the security headers, form parsing, the session and the CSRF
 * check, so routes are relative to /console (`router.get('/campaigns', ...)`). Guards:
 * `requireSession` and `requireRole('Admin')` from http/session.ts. Errors thrown (or passed to
 * `next`) become the console's HTML error pages: `AdminApiError` 403/404 → the 403/404 page,
 * 429 → the 429 page, no answer or 5xx → 503; catch 409/422 to show them on the form.
 */

/** The signed-in member, as a page sees them. `csrf` goes into every form as `_csrf`. */
export interface PageSession {
  userId: string;
  orgId: string;
  orgName: string;
  role: MemberRole;
  email: string;
  csrf: string;
}

export interface PageContext {
  session: PageSession;
  /** The gateway's admin API, acting as this member (gateway-client/fetch.ts). */
  admin: AdminFetch;
}

export interface PageDeps {
  logger: Logger;
  /** The page context of a signed-in request; throws (→ sign-in) when there is no session. */
  context(res: Response): PageContext;
  /** The browser-facing origin (CONSOLE_PUBLIC_ORIGIN), for absolute links. */
  publicOrigin: string;
}

export type PageRegistration = (router: Router, deps: PageDeps) => void;

/** Builds `deps.context`: the session of the request and the admin API bound to its member. */
export function pageContextOf(adminFetch: MemberAdminFetch): (res: Response) => PageContext {
  return (res) => {
    const { userId, orgId, orgName, role, email, csrf } = sessionOf(res);
    return { session: { userId, orgId, orgName, role, email, csrf }, admin: bindMember(adminFetch, { orgId, userId, role }) };
  };
}

/** Sends a whole page (a `<Layout>`), never cached. */
export function sendPage(res: Response, page: VNode<any>, status = 200): void {
  sendHtml(res, status, render(page));
}

/** Sends an htmx fragment (no shell), never cached. */
export function sendFragment(res: Response, fragment: VNode<any>, status = 200): void {
  sendHtml(res, status, renderFragment(fragment));
}

export { requireRole, requireSession } from '../http/session.ts';
export { AdminApiError, type AdminFetch } from '../gateway-client/fetch.ts';
export { Layout, managesSettings } from '../views/layout.tsx';
