import { h, type ComponentType } from 'preact';
import { render } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import type { AdminIssue, AdminWebhook, CreatedApiKey, IssuePage as IssuePageData, PublicCampaign, ReadinessReport, TesterProgress } from '../src/gateway-client/api-types.ts';
import { CampaignPage } from '../src/pages/campaigns/campaign-view.tsx';
import { CampaignsPage } from '../src/pages/campaigns/list-view.tsx';
import { readinessFingerprint } from '../src/pages/campaigns/report-view.tsx';
import { IssuePage } from '../src/pages/issues/issue-view.tsx';
import { NewIssuePage } from '../src/pages/issues/new-view.tsx';
import { ApiKeysPage } from '../src/pages/settings/api-keys-view.tsx';
import { kindSettings, kindSpec } from '../src/pages/settings/integration-kinds.ts';
import { MembersPage } from '../src/pages/settings/members-view.tsx';
import { WebhookPage } from '../src/pages/settings/webhook-view.tsx';

// The page components are pure functions of their data: rendered to a string here, the way the
// console serves them, to check what a reader gets (escaping, errors beside their fields, the
// forms a role sees, the live regions' polling).

const html = <P>(component: ComponentType<P>, props: P) => render(h(component as ComponentType<any>, props as any));

const ID = '11111111-1111-4111-8111-111111111111';
const NOW = '2026-11-27T14:00:00.000Z';
const csrf = 'csrf-token-value';

const campaign: PublicCampaign = { id: ID, name: 'Launch <b>now</b>', status: 'Draft', siteId: ID, siteName: 'Shop', readinessLevel: 'AtRisk', gate: 'awaiting-signoff', createdAt: NOW };
const report: ReadinessReport = { version: 3, readinessLevel: 'AtRisk', gate: 'awaiting-signoff', sealState: 'open', sealedVersion: null, requiredCount: 1, signedCount: 0, waivedCount: 0, entries: [] };
const issues: IssuePageData = { items: [], page: 1, pageSize: 25, total: 0, hasMore: false };

function issue(overrides: Partial<AdminIssue> = {}): AdminIssue {
  const text = null;
  return {
    id: ID, seqNumber: 7, campaignId: ID, campaignName: 'Launch', siteId: ID, siteName: 'Shop', type: 'Bug', severity: 'High', status: 'New',
    title: '<script>alert(1)</script>', description: text, stepsToReproduce: text, expectedBehavior: text, actualBehavior: text, pageUrl: 'javascript:alert(1)',
    pageTitle: text, browserName: text, browserVersion: text, operatingSystem: text, deviceType: text, screenResolution: text, screenshotUrl: text,
    assigneeName: null, testerEmail: null, duplicateOfId: null, duplicateOfSeqNumber: null, createdAt: NOW, updatedAt: NOW, history: [], reporter: 'Dashboard',
    ...overrides,
  };
}

describe('page components', () => {
  it('escape what people typed and never link a script URL', () => {
    const out = html(IssuePage, { issue: issue(), links: [], siblings: [], csrf });
    expect(out).not.toContain('<script>alert(1)</script>');
    expect(out).toContain('&lt;script>alert(1)&lt;/script>');
    expect(out).not.toMatch(/href="javascript:/);
  });

  it('offer only the workflow moves from the current status, Duplicate with the original to name', () => {
    const out = html(IssuePage, { issue: issue({ status: 'Fixed' }), links: [], siblings: [], csrf });
    const buttons = [...out.matchAll(/name="to" value="([A-Za-z]+)"/g)].map((m) => m[1]);
    expect(buttons).toEqual(['RetestRequested', 'InProgress', 'Closed']);
    const triage = html(IssuePage, { issue: issue(), links: [], siblings: [{ ...issue({ id: '22222222-2222-4222-8222-222222222222', seqNumber: 3, title: 'First' }) }], csrf });
    expect(triage).toContain('aria-label="Mark as duplicate"');
    expect(triage).toContain('#3 First');
  });

  it('put a 422 message next to its field, marked invalid and described by it', () => {
    const out = html(NewIssuePage, { campaign, csrf, problem: { detail: 'One or more fields are invalid.', fields: { pageUrl: ['Must be an absolute http or https URL.'] } }, values: { title: 'Kept', pageUrl: 'ftp://x' } });
    const input = /<input id="pageUrl"[^>]*>/.exec(out)![0];
    for (const attr of ['type="url"', 'value="ftp://x"', 'aria-invalid="true"', 'aria-describedby="pageUrl-error"']) expect(input).toContain(attr);
    expect(out).toContain('<ul class="field-error" id="pageUrl-error"><li>Must be an absolute http or https URL.</li></ul>');
    expect(out).toContain('role="alert"');
    expect(out).toContain('value="Kept"');
  });

  it('carry the CSRF token in every form that posts', () => {
    const out = html(CampaignPage, { campaign, report, signers: [{ id: ID, name: 'Quinn', email: 'q@example.com', createdAt: NOW }], issues, tasks: [], testers: [], filter: {}, canManage: true, csrf });
    const posts = out.match(/<form method="post"/g)!.length;
    expect(posts).toBeGreaterThan(5);
    expect(out.match(/name="_csrf" value="csrf-token-value"/g)!.length).toBe(posts);
  });

  it('show Members no management forms', () => {
    const member = html(CampaignPage, { campaign, report, signers: [{ id: ID, name: 'Quinn', email: 'q@example.com', createdAt: NOW }], issues, tasks: [], testers: [], filter: {}, canManage: false, csrf });
    expect(member).not.toContain('Launch</button>');
    expect(member).not.toContain('aria-label="Add a task"');
    expect(member).not.toContain('aria-label="Add a waiver"');
    expect(member).toContain('aria-label="Add a stamp"');
    const list = html(CampaignsPage, { rows: [{ campaign, report }], sites: [], canManage: false, csrf });
    expect(list).not.toContain('New campaign');
    expect(list).toContain('Launch &lt;b>now&lt;/b>');
  });

  it('list testers and tasks, and offer each tester still testing a labelled choice of tasks', () => {
    const task = (id: string, title: string, required: boolean) => ({ id, title, required });
    const tasks = [task('a1111111-1111-4111-8111-111111111111', 'Log in', true), task('a2222222-2222-4222-8222-222222222222', 'Pay', true), task('a3333333-3333-4333-8333-333333333333', 'Browse', false)];
    const done = (t: (typeof tasks)[number]) => ({ ...t, verdict: null, completedAt: NOW });
    const tester = (id: string, name: string, extra: Partial<TesterProgress>): TesterProgress => ({ id, name, email: `${name.toLowerCase()}@example.com`, preview: false, status: 'Invited', verdict: null, completedAt: null, completedTasks: [], ...extra });
    const testers = [
      tester('b1111111-1111-4111-8111-111111111111', 'Ann', { status: 'Started', verdict: 'So far <good>', completedTasks: [done(tasks[0]!), done(tasks[2]!)] }),
      tester('b2222222-2222-4222-8222-222222222222', 'Ben', { status: 'Completed', preview: true, completedAt: NOW, completedTasks: [done(tasks[0]!), done(tasks[1]!)] }),
    ];
    const out = html(CampaignPage, { campaign, report, signers: [], issues, tasks, testers, filter: {}, canManage: false, csrf });
    expect(out).toContain('<caption>Testers</caption>');
    expect(out).toContain('1 of 2 required (+1 optional)');
    expect(out).toContain('2 of 2 required');
    expect(out).toContain('So far &lt;good>');
    expect(out).toContain('<caption>Tasks</caption>');
    // Ann (Started) gets a form, Ben (Completed) none; the task she has not done yet comes chosen.
    expect(out).toContain('aria-label="Complete a task for Ann"');
    expect(out).not.toContain('aria-label="Complete a task for Ben"');
    expect(out).toContain(`<input type="hidden" name="testerId" value="${testers[0]!.id}"/>`);
    const key = `complete-${testers[0]!.id}`;
    expect(out).toContain(`<label for="${key}-taskId">Task</label>`);
    const select = new RegExp(`<select id="${key}-taskId" name="taskId" required>(.*?)</select>`).exec(out)![1]!;
    expect([...select.matchAll(/<option value="([^"]+)"( selected)?>([^<]+)<\/option>/g)].map((m) => [m[1], m[3], Boolean(m[2])])).toEqual([
      [tasks[0]!.id, 'Log in (required) (done)', false],
      [tasks[1]!.id, 'Pay (required)', true],
      [tasks[2]!.id, 'Browse (done)', false],
    ]);
    expect(out).not.toContain('Tester id');

    // A refused completion shows beside that tester's form only.
    const refused = html(CampaignPage, { campaign, report, signers: [], issues, tasks, testers, filter: {}, canManage: false, csrf, problem: { form: key, detail: 'Validation failed.', fields: { verdict: ['Too long.'] } } });
    expect(refused).toContain(`<ul class="field-error" id="${key}-verdict-error"><li>Too long.</li></ul>`);
    expect(refused.match(/role="alert"/g)).toHaveLength(1);
  });

  it('poll the readiness verdict every 3 s, naming what it shows', () => {
    const out = html(CampaignPage, { campaign, report, signers: [], issues, tasks: [], testers: [], filter: {}, canManage: false, csrf });
    expect(out).toContain(`hx-get="/console/campaigns/${ID}/readiness?seen=${readinessFingerprint({ campaign, report })}" hx-trigger="every 3s" hx-swap="outerHTML"`);
    expect(readinessFingerprint({ campaign, report: { ...report, signedCount: 1 } })).not.toBe(readinessFingerprint({ campaign, report }));
  });

  it('poll a webhook log every 2 s and offer re-enabling a disabled endpoint', () => {
    const webhook: AdminWebhook = { id: ID, name: 'Receiver', url: 'https://example.com/hook', events: null, isEnabled: false, source: 'dashboard', createdAt: NOW, consecutiveFailures: 5, disabledAt: NOW, stats: null };
    const out = html(WebhookPage, { webhook, deliveries: [], csrf });
    expect(out).toMatch(/hx-get="\/console\/settings\/webhooks\/[0-9a-f-]+\/deliveries\?seen=[A-Za-z0-9_-]+" hx-trigger="every 2s"/);
    expect(out).toContain('Re-enable endpoint');
    expect(html(WebhookPage, { webhook: { ...webhook, isEnabled: true, disabledAt: null, consecutiveFailures: 0 }, deliveries: [], csrf })).not.toContain('Re-enable endpoint');
  });

  it('show a new key once, with a copy button wired by an external script', () => {
    const created: CreatedApiKey = { id: ID, name: 'CI', scopes: ['read'], key: 'svc_test_abc', createdAt: NOW };
    const out = html(ApiKeysPage, { keys: [], csrf, created });
    expect(out).toContain('<code id="new-key">svc_test_abc</code>');
    expect(out).toContain('data-copy="new-key"');
    expect(out).toContain('<script src="/console/static/console.js" defer></script>');
  });

  it('let an Admin hand out Admin and Member only', () => {
    const out = html(MembersPage, { members: [], invitations: [], me: { userId: ID, role: 'Admin' as const }, csrf });
    const roles = [...out.matchAll(/<option value="(\w+)"/g)].map((m) => m[1]);
    expect(roles).toEqual(['Admin', 'Member']);
  });

  it('turn a connect form into config and credentials', () => {
    const fields: Record<string, string> = { 'config.owner': 'acme', 'config.repo': 'shop', 'config.labels': 'preflight, qa', 'config.apiBaseUrl': '', 'credentials.token': 'ghp_x' };
    expect(kindSettings(kindSpec('github')!, (n) => fields[n] ?? '')).toEqual({ config: { owner: 'acme', repo: 'shop', labels: ['preflight', 'qa'] }, credentials: { token: 'ghp_x' } });
    const jira: Record<string, string> = { 'config.baseUrl': 'https://x.atlassian.net', 'config.projectKey': 'PRJ', 'config.statusMap': 'Done = Fixed\nWon\'t do = WontFix', 'credentials.email': 'a@b.c', 'credentials.apiToken': 't' };
    expect(kindSettings(kindSpec('jira')!, (n) => jira[n] ?? '').config).toEqual({ baseUrl: 'https://x.atlassian.net', projectKey: 'PRJ', statusMap: { Done: 'Fixed', "Won't do": 'WontFix' } });
  });
});
