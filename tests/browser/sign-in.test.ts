import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, browserSystem, invite, launchBrowser, newPerson, operator, organisationWithOwner, PASSWORD, signIn, visit, writeFigures } from './harness.ts';

/**
 * The pages a person sees before and around a session (issue 24): password sign-in and its
 * refusal, an invitation for a new and for an existing account, a used link (410), the
 * organisation chooser; and the console used with the keyboard alone.
 */

let sys: Awaited<ReturnType<typeof browserSystem>>;
let browser: Browser;
let owner: Awaited<ReturnType<typeof organisationWithOwner>>;
/** A second organisation the Owner joins by invitation, so they have two to choose from. */
let second: { id: string; name: string };

/** Addresses unique to the run: users outlive an organisation, and a system may be reused (CONSOLE_TEST_SYSTEM). */
const RUN = Math.random().toString(36).slice(2, 8);

beforeAll(async () => {
  [sys, browser] = await Promise.all([browserSystem(), launchBrowser()]);
  owner = await organisationWithOwner(browser, sys, 'Sign-in');
  second = await operator(sys, 'POST', '/admin/v1/organizations', { name: `Second ${RUN}` });
}, 180_000);

afterAll(async () => {
  writeFigures('console-sign-in-figures.json');
  await browser?.close();
  await sys?.stop();
});

/** The element holding the keyboard focus, described for assertions (in-page code as a string: no DOM types here). */
const focused = (page: Page) =>
  page.evaluate<{ tag: string; name: string | null; text: string }>(
    `(() => { const e = document.activeElement; return { tag: e.tagName.toLowerCase(), name: e.getAttribute('name'), text: (e.textContent || '').trim() }; })()`,
  );

/** Presses Tab until the focus is on what `matches` accepts; fails after `max` presses. */
async function tabTo(page: Page, what: string, matches: (f: Awaited<ReturnType<typeof focused>>) => boolean, max = 60): Promise<void> {
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab');
    if (matches(await focused(page))) return;
  }
  throw new Error(`Tab never reached ${what} in ${max} presses`);
}

describe('password sign-in', () => {
  it('signs out, is refused a wrong password, and signs back in with e-mail and password', async () => {
    const { page } = owner;
    await visit(page, '/console/campaigns');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/console\/sign-in$/);
    await visit(page, '/console/campaigns', 200);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await audit(page, 'sign-in');

    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: /sign in/i }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('do not match an account');
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await audit(page, 'sign-in-refused', { screenshot: false });

    await signIn(page, owner.email);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Campaigns');
    expect(await page.locator('.shell-email').textContent()).toBe(owner.email);
  });
});

describe('invitations', () => {
  it('shows a new person the name and password form, and a used link the 410 page', async () => {
    const link = await invite(sys, second.id, `new-${RUN}@example.com`, 'Member');
    const person = await newPerson(browser, sys);
    await visit(person.page, link);
    await expect.poll(() => person.page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Join /);
    expect(await person.page.getByLabel('Choose a password').count()).toBe(1);
    await audit(person.page, 'invitation');
    await person.page.getByLabel('Your name').fill('Nia New');
    await person.page.getByLabel('Choose a password').fill(PASSWORD);
    await person.page.getByRole('button', { name: 'Create account and accept' }).click();
    await person.page.waitForURL(/\/console\/campaigns$/);

    await visit(person.page, link, 410);
    await expect.poll(() => person.page.getByText('already been used').count()).toBe(1);
    await audit(person.page, 'invitation-used');
    await person.context.close();
  });

  it('asks someone with an account for their password, and they join the second organisation', async () => {
    const link = await invite(sys, second.id, owner.email, 'Admin');
    const person = await newPerson(browser, sys);
    await visit(person.page, link);
    await expect.poll(() => person.page.getByText('You already have a Preflight account').count()).toBe(1);
    expect(await person.page.getByLabel('Your name').count()).toBe(0);
    await audit(person.page, 'invitation-existing');
    await person.page.getByLabel('Password').fill(PASSWORD);
    await person.page.getByRole('button', { name: 'Sign in and accept' }).click();
    await person.page.waitForURL(/\/console\/campaigns$/);
    expect(await person.page.locator('.shell-role').textContent()).toBe('Admin');
    await person.context.close();
  });

  it('has a member of two organisations choose one after signing in', async () => {
    const person = await newPerson(browser, sys);
    const { page } = person;
    await visit(page, '/console/sign-in');
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.waitForURL(/\/console\/orgs/);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Choose an organisation');
    await audit(page, 'orgs');
    await page.getByRole('button', { name: second.name }).click();
    await page.waitForURL(/\/console\/campaigns$/);
    expect(await page.locator('.shell-org').textContent()).toBe(second.name);
    expect(await page.locator('.shell-role').textContent()).toBe('Admin');
    await person.context.close();
  });
});

describe('with the keyboard alone', () => {
  it('skips to the main content, creates an API key and is shown it once', async () => {
    const { page } = owner;
    await visit(page, '/console/settings/api-keys');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'a', text: 'Skip to main content' });
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatchObject({ tag: 'main' });

    // From the main content on: the first field of the form is the key's name.
    await tabTo(page, 'the key name', (f) => f.tag === 'input' && f.name === 'name');
    await page.keyboard.type('Keyboard key');
    await tabTo(page, 'the read scope', (f) => f.tag === 'input' && f.name === 'scopes');
    await page.keyboard.press('Space');
    expect(await page.getByRole('form', { name: 'Create a key' }).getByLabel('read', { exact: true }).isChecked()).toBe(true);
    await tabTo(page, 'the Create key button', (f) => f.tag === 'button' && f.text === 'Create key');
    await page.keyboard.press('Enter');

    const key = page.locator('#new-key');
    await expect.poll(() => key.count()).toBe(1);
    const value = (await key.textContent())!;
    expect(value).toMatch(/^svc_(live|test)_/);
    const row = page.getByRole('row').filter({ hasText: 'Keyboard key' });
    expect(await row.textContent()).toContain('read');
    // Shown once: the next visit lists the key by name and never shows it again.
    await visit(page, '/console/settings/api-keys');
    expect(await page.getByRole('row').filter({ hasText: 'Keyboard key' }).count()).toBe(1);
    expect(await page.content()).not.toContain(value);
  });
});
