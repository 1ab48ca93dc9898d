import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import { expect } from 'vitest';
import { REPO_ROOT } from '../../scripts/lib/services.ts';
import { call, type ApiResponse } from '../support/client.ts';
import { startSystem, type SystemInfo } from '../support/system.ts';

/**
 * The browser side of the console's tests: Debian's Chromium driven by playwright-core against
 * a running system (tests/support, console included), axe-core on every page, and the
 * screenshots and timings docs/console-pages.md shows.
 */

const require = createRequire(import.meta.url);

/** Debian's package (`.ci/run` installs it); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

/** Screenshots are written only when asked for (CONSOLE_SCREENSHOTS=1): one committed set keeps the repository small. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';
const SCREENSHOT_DIR = join(REPO_ROOT, 'docs/console');

/**
 * The system under test: started here, or (for a quicker edit-and-run loop) one already running
 * whose SystemInfo JSON the file named by CONSOLE_TEST_SYSTEM holds; that one is left running.
 */
export async function browserSystem(): Promise<SystemInfo & { stop(): Promise<void> }> {
  const file = process.env.CONSOLE_TEST_SYSTEM;
  // Small pools: under npm test the end-to-end project's system may still hold its connections.
  if (!file) return startSystem({ DB_POOL_MAX: '3' });
  return { ...(JSON.parse(readFileSync(file, 'utf8')) as SystemInfo), stop: async () => undefined };
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: the browser tests need one. Install Debian's package (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH to a Chromium binary.`);
  }
  // --no-sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A browser profile of its own (cookies, clipboard) for one person. */
export async function newPerson(browser: Browser, sys: SystemInfo): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: sys.gatewayUrl, viewport: DESKTOP });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sys.gatewayUrl });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  return { context, page };
}

/** The operator's admin API call (the admin token), failing the test on anything but 2xx. */
export async function operator<T = any>(sys: SystemInfo, method: string, path: string, body?: unknown): Promise<T> {
  const res: ApiResponse<T> = await call<T>(sys, method, path, { token: sys.adminToken, body });
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
  return res.body;
}

/** A one-time invitation link, created by the operator (the way an organisation's first Owner is made). */
export async function invite(sys: SystemInfo, orgId: string, email: string, role: 'Owner' | 'Admin' | 'Member'): Promise<string> {
  const created = await operator<{ url: string }>(sys, 'POST', `/admin/v1/organizations/${orgId}/invitations`, { email, role });
  return created.url;
}

/** A new organisation with its first Owner signed in to the console in a browser profile of their own. */
export async function organisationWithOwner(browser: Browser, sys: SystemInfo, label: string) {
  const org = await operator<{ id: string; name: string }>(sys, 'POST', '/admin/v1/organizations', { name: `${label} ${Math.random().toString(36).slice(2, 7)}` });
  const email = `owner-${org.id.slice(0, 8)}@example.com`;
  const owner = await newPerson(browser, sys);
  await acceptInvitation(owner.page, await invite(sys, org.id, email, 'Owner'), { name: `${label} Owner`, password: PASSWORD });
  return { org, email, ...owner };
}

export const PASSWORD = 'correct horse battery staple';

/** Where a member lands after signing in (also usable in hooks, unlike expect.poll). */
const CAMPAIGNS = /\/console\/campaigns$/;

/** Opens an invitation link, sets a name and password, and ends signed in on the campaigns page. */
export async function acceptInvitation(page: Page, url: string, person: { name: string; password: string }): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Your name').fill(person.name);
  await page.getByLabel('Choose a password').fill(person.password);
  await page.getByRole('button', { name: /accept/i }).click();
  await page.waitForURL(CAMPAIGNS);
}

export async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto('/console/sign-in');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL(CAMPAIGNS);
}

/** Loads a console page and returns the response, failing on a status other than `status`. */
export async function visit(page: Page, path: string, status = 200): Promise<Response> {
  const res = await page.goto(path);
  expect(res, path).not.toBeNull();
  expect(res!.status(), `${path} answered ${res!.status()}`).toBe(status);
  return res!;
}

/** axe-core's source, evaluated in the page through the DevTools protocol: a script tag would be inline, which the console's CSP refuses. */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** axe-core in the page: no serious or critical violation. */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<Violation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)) })))`);
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${label}: ${JSON.stringify(serious, null, 2)}`).toEqual([]);
}

/** Readable on a phone: the page itself never scrolls sideways (wide tables scroll inside their own region). */
export async function expectNoSidewaysScroll(page: Page, label: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  );
  expect(scrollWidth, `${label} (phone) is ${scrollWidth} px wide in a ${innerWidth} px viewport`).toBeLessThanOrEqual(innerWidth);
}

/** What docs/console-pages.md reports per page: JavaScript loaded and Navigation Timing's domInteractive. */
export interface PageFigures {
  page: string;
  scriptBytes: number;
  scripts: number;
  domInteractiveMs: number;
}

export const figures: PageFigures[] = [];

export async function pageFigures(page: Page, name: string): Promise<PageFigures> {
  // In-page code as a string: the tests' TypeScript has no DOM types.
  const measured = await page.evaluate<Omit<PageFigures, 'page'>>(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const scripts = performance.getEntriesByType('resource').filter((r) => r.initiatorType === 'script');
    return { domInteractiveMs: Math.round(nav ? nav.domInteractive : -1), scriptBytes: scripts.reduce((sum, s) => sum + s.decodedBodySize, 0), scripts: scripts.length };
  })()`);
  const f = { page: name, ...measured };
  figures.push(f);
  return f;
}

/**
 * Every page kind is checked the same way: axe at desktop and phone size, no sideways scrolling
 * at phone size, its figures measured, and (with CONSOLE_SCREENSHOTS=1) a screenshot at each size
 * into docs/console/, one page of each kind (`screenshot: false` for a second state of a page already shown).
 */
export async function audit(page: Page, name: string, opts: { screenshot?: boolean } = {}): Promise<void> {
  await pageFigures(page, name);
  const shoot = SCREENSHOTS && opts.screenshot !== false;
  for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    await page.setViewportSize(viewport);
    await expectAccessible(page, `${name} (${size})`);
    if (size === 'phone') await expectNoSidewaysScroll(page, name);
    if (shoot) {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${size}.png`), fullPage: size === 'desktop' });
    }
  }
  await page.setViewportSize(DESKTOP);
}

/** Writes the measured figures where a run leaves its reports (.preflight/), for docs/console-pages.md. */
export function writeFigures(file: string): void {
  if (figures.length === 0) return;
  mkdirSync(join(REPO_ROOT, '.preflight'), { recursive: true });
  writeFileSync(join(REPO_ROOT, '.preflight', file), `${JSON.stringify(figures, null, 2)}\n`);
}

/** Fills the console's issue form (the page at /console/campaigns/:id/issues/new) and files it. */
export async function fileIssue(page: Page, fields: { title: string; severity: string; type: string; pageUrl?: string }): Promise<void> {
  const form = page.getByRole('form', { name: 'File an issue' });
  await form.getByLabel('Title', { exact: true }).fill(fields.title);
  await form.getByLabel('Severity', { exact: true }).selectOption(fields.severity);
  await form.getByLabel('Type', { exact: true }).selectOption(fields.type);
  if (fields.pageUrl) await form.getByLabel('Page URL').fill(fields.pageUrl);
  await form.getByRole('button', { name: 'File issue' }).click();
}

/** Fills and posts one form found by its accessible name. */
export async function submitForm(page: Page, formName: string | RegExp, fields: Record<string, string>, button: string | RegExp): Promise<void> {
  const form = page.getByRole('form', { name: formName });
  for (const [label, value] of Object.entries(fields)) await form.getByLabel(label, { exact: true }).fill(value);
  await form.getByRole('button', { name: button }).click();
}
