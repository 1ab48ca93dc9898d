/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { ComponentChildren, VNode } from 'preact';
import { render as renderToString } from 'preact-render-to-string';
import type { MemberRole } from '@preflight/http';

/** What the shell shows of the signed-in member (absent on the sign-in and invitation pages). */
export interface ShellSession {
  orgName: string;
  role: MemberRole;
  email: string;
  csrf: string;
}

export interface LayoutProps {
  /** The page's own title; the document title is "<title> · <organisation> · Preflight". */
  title: string;
  session?: ShellSession | undefined;
  /** The path of the page, to mark its nav entry as current (`/console/campaigns`…). */
  path?: string | undefined;
  children?: ComponentChildren;
}

export const STATIC_BASE = '/console/static';

/**
 * htmx's settings, read from a meta tag (no inline script under the CSP): no inline indicator
 * styles, no eval or script tags (the CSP would refuse them anyway), and 409/422 answers are
 * swapped like successes so a form shows its errors; other errors are not swapped.
 */
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  responseHandling: [
    { code: '204', swap: false },
    { code: '[23]..', swap: true },
    { code: '409|422', swap: true, error: false },
    { code: '[45]..', swap: false, error: true },
  ],
});

const SETTINGS = [
  { href: '/console/settings/api-keys', label: 'API keys' },
  { href: '/console/settings/webhooks', label: 'Webhooks' },
  { href: '/console/settings/integrations', label: 'Integrations' },
  { href: '/console/settings/members', label: 'Members' },
] as const;

/** Whether a role manages the organisation's settings (keys, webhooks, integrations, members). */
export const managesSettings = (role: MemberRole): boolean => role === 'Owner' || role === 'Admin';

function NavLink({ href, path, children }: { href: string; path: string | undefined; children: ComponentChildren }) {
  const current = path !== undefined && (path === href || path.startsWith(`${href}/`));
  return (
    <a href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

function Header({ session, path }: { session: ShellSession; path: string | undefined }) {
  return (
    <header class="shell-header">
      <div class="shell-brand">
        <a href="/console/" class="shell-home">
          Preflight
        </a>
        <span class="shell-org" title="Organisation">
          {session.orgName}
        </span>
      </div>
      <nav aria-label="Main" class="shell-nav">
        <ul>
          <li>
            <NavLink href="/console/campaigns" path={path}>
              Campaigns
            </NavLink>
          </li>
          {managesSettings(session.role) && (
            <li class="shell-settings">
              <span class="shell-nav-heading" id="nav-settings">
                Settings
              </span>
              <ul aria-labelledby="nav-settings">
                {SETTINGS.map((s) => (
                  <li key={s.href}>
                    <NavLink href={s.href} path={path}>
                      {s.label}
                    </NavLink>
                  </li>
                ))}
              </ul>
            </li>
          )}
        </ul>
      </nav>
      <div class="shell-user">
        <span class="shell-email">{session.email}</span>
        <span class="shell-role">{session.role}</span>
        <a href="/console/orgs">Switch organisation</a>
        <form method="post" action="/console/sign-out" class="inline">
          <input type="hidden" name="_csrf" value={session.csrf} />
          <button type="submit">Sign out</button>
        </form>
      </div>
    </header>
  );
}

/**
 * The page shell every console page renders in: skip link, header with the organisation, main
 * navigation (Settings only for Owners and Admins), the user menu with sign-out, `<main id="main">`.
 * htmx sends the session's CSRF token with every request it makes (`hx-headers` on `<body>`);
 * plain forms carry it as `_csrf`. No inline script or style: the CSP forbids both.
 */
export function Layout({ title, session, path, children }: LayoutProps): VNode {
  const documentTitle = [title, session?.orgName, 'Preflight'].filter(Boolean).join(' · ');
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content={HTMX_CONFIG} />
        <title>{documentTitle}</title>
        <link rel="stylesheet" href={`${STATIC_BASE}/console.css`} />
        <script src={`${STATIC_BASE}/htmx.min.js`} defer></script>
      </head>
      <body hx-headers={session ? JSON.stringify({ 'X-CSRF-Token': session.csrf }) : undefined}>
        <a class="skip-link" href="#main">
          Skip to main content
        </a>
        {session ? (
          <Header session={session} path={path} />
        ) : (
          <header class="shell-header">
            <div class="shell-brand">
              <span class="shell-home">Preflight</span>
            </div>
          </header>
        )}
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </body>
    </html>
  );
}

/** A whole page as HTML, with its doctype. */
export function render(page: VNode<any>): string {
  return `<!doctype html>${renderToString(page)}`;
}

/** An htmx fragment (no shell): what `hx-get` swaps into a page. */
export function renderFragment(fragment: VNode<any>): string {
  return renderToString(fragment);
}
