import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGithub, startFakeJira, startFakeLinear, type FakeGithub, type FakeJira, type FakeLinear } from '@preflight/provider-fakes';
import { eventually } from '@preflight/testing';
import { activityOf, connect, integrationSuite, type IntegrationHarness, type StandInIssue } from './harness.ts';

const h = integrationSuite();
let github: FakeGithub;
let jira: FakeJira;
let linear: FakeLinear;
let token: string;
const TEAM = randomUUID();

beforeAll(async () => {
  [github, jira, linear] = await Promise.all([startFakeGithub(), startFakeJira(), startFakeLinear()]);
  token = github.addToken();
  jira.createProject('SHOP');
  linear.createTeam(TEAM, 'ENG');
});
afterAll(async () => {
  await Promise.all([github?.close(), jira?.close(), linear?.close()]);
});

// Through the gateway's stand-in: the service port answers the gateway's token, not a tracker.
const hookUrl = (h: IntegrationHarness, connectionId: string) => `${h.hookBase}/integrations/v1/hooks/${connectionId}`;

/** A connection whose tracker issue for a freshly filed Preflight issue exists and is linked. */
async function linkedIssue(body: Record<string, unknown>, title: string): Promise<{ c: any; issue: StandInIssue }> {
  const orgId = randomUUID();
  const c = await connect(h, orgId, body);
  const issue = await h.fileIssue(orgId, randomUUID(), { title });
  await eventually(async () => expect((await h.call('GET', `/admin/v1/issues/${issue.id}/links`)).body).toHaveLength(1));
  return { c, issue };
}

const changesOf = (issueId: string) => h.issues.changes.filter((c) => c.issueId === issueId);

describe('GitHub', () => {
  it('closing the issue on GitHub moves the Preflight issue to Fixed, once, through the issue service with its origin', async () => {
    github.createRepo('acme', 'inbound');
    const { c, issue } = await linkedIssue({ kind: 'github', name: 'Inbound', config: { owner: 'acme', repo: 'inbound', apiBaseUrl: github.url }, credentials: { token } }, 'Closed on GitHub');
    github.registerHook(hookUrl(h, c.id), c.inbound.secret, 'acme/inbound');
    const number = github.issues('acme', 'inbound').find((i) => i.title.includes('Closed on GitHub'))!.number;

    expect(await github.closeIssue('acme', 'inbound', number, 'completed')).toBe(200);
    await eventually(() => expect(changesOf(issue.id)).toHaveLength(1));
    expect(changesOf(issue.id)[0]).toMatchObject({ to: 'Fixed', origin: `integration:${c.id}` });
    expect(changesOf(issue.id)[0]!.reason).toContain(`acme/inbound#${number}`);

    // Reopened on GitHub: Fixed goes back to InProgress.
    expect(await github.reopenIssue('acme', 'inbound', number)).toBe(200);
    await eventually(() => expect(changesOf(issue.id).map((x) => x.to)).toEqual(['Fixed', 'InProgress']));
    // The activity entry is written once the issue service has answered the change, just after it.
    await eventually(async () => expect((await activityOf(h, c.id)).filter((a) => a.direction === 'in' && a.outcome === 'succeeded')).toHaveLength(2));
  });

  it('drops the echo of a change Preflight made, and applies nothing twice for a redelivered hook', async () => {
    github.createRepo('acme', 'echoes');
    const { c, issue } = await linkedIssue({ kind: 'github', name: 'Echoes', config: { owner: 'acme', repo: 'echoes', apiBaseUrl: github.url }, credentials: { token } }, 'Echoed change');
    github.registerHook(hookUrl(h, c.id), c.inbound.secret, 'acme/echoes');

    // Preflight closes it; GitHub then tells the hook about that very close (as it does for API changes).
    await h.moveIssue(issue.id, 'Closed');
    const echo = await github.waitForDelivery((d) => d.payload.action === 'closed' && (d.payload.issue as { title: string }).title.includes('Echoed change'));
    expect(echo.status).toBe(200);
    await eventually(async () => expect((await activityOf(h, c.id)).some((a) => a.direction === 'in' && a.outcome === 'skipped' && String(a.error).startsWith('echo'))).toBe(true));
    expect(changesOf(issue.id)).toHaveLength(0);

    // The same delivery twice (GitHub's "Redeliver"): one job, one change.
    const number = github.issues('acme', 'echoes').find((i) => i.title.includes('Echoed change'))!.number;
    expect(await github.reopenIssue('acme', 'echoes', number)).toBe(200);
    const reopened = github.deliveries.at(-1)!;
    const body = JSON.stringify(reopened.payload);
    const again = await h.call('POST', `/integrations/v1/hooks/${c.id}`, {
      as: null,
      raw: body,
      headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': reopened.deliveryId, 'x-hub-signature-256': `sha256=${createHmac('sha256', c.inbound.secret).update(body).digest('hex')}` },
    });
    expect(again.status).toBe(200);
    await eventually(() => expect(changesOf(issue.id).map((x) => x.to)).toEqual(['Acknowledged']));
  });

  it('refuses unsigned, wrongly signed and unknown-connection hooks with 401 and changes nothing', async () => {
    github.createRepo('acme', 'forged');
    const { c, issue } = await linkedIssue({ kind: 'github', name: 'Forged', config: { owner: 'acme', repo: 'forged', apiBaseUrl: github.url }, credentials: { token } }, 'Forgery target');
    const number = github.issues('acme', 'forged').find((i) => i.title.includes('Forgery target'))!.number;
    const body = JSON.stringify({ action: 'closed', issue: { number, state: 'closed', state_reason: 'completed' }, repository: { full_name: 'acme/forged' } });
    const headers = { 'content-type': 'application/json', 'x-github-event': 'issues' };
    const sign = (secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

    for (const [path, extra] of [
      [c.id, {}],
      [c.id, { 'x-hub-signature-256': sign('not-the-secret') }],
      // The last hex digit changed (a signature already ending in 0 stayed valid: 1 run in 16 failed).
      [c.id, { 'x-hub-signature-256': sign(c.inbound.secret).replace(/.$/, (d) => (d === '0' ? '1' : '0')) }],
      [randomUUID(), { 'x-hub-signature-256': sign(c.inbound.secret) }],
      ['not-a-uuid', { 'x-hub-signature-256': sign(c.inbound.secret) }],
    ] as const) {
      const res = await h.call('POST', `/integrations/v1/hooks/${path}`, { as: null, raw: body, headers: { ...headers, ...extra } });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    const signed = await h.call('POST', `/integrations/v1/hooks/${c.id}`, { as: null, raw: body, headers: { ...headers, 'x-hub-signature-256': sign(c.inbound.secret) } });
    expect(signed.status).toBe(200);
    await eventually(() => expect(changesOf(issue.id).map((x) => x.to)).toEqual(['Fixed']));
  });

  it('records a move the workflow does not allow as skipped', async () => {
    github.createRepo('acme', 'refused');
    const { c, issue } = await linkedIssue({ kind: 'github', name: 'Refused', config: { owner: 'acme', repo: 'refused', apiBaseUrl: github.url }, credentials: { token } }, 'Not allowed');
    github.registerHook(hookUrl(h, c.id), c.inbound.secret, 'acme/refused');
    h.issues.refuse.add('WontFix');
    try {
      const number = github.issues('acme', 'refused').find((i) => i.title.includes('Not allowed'))!.number;
      await github.closeIssue('acme', 'refused', number, 'not_planned');
      await eventually(async () => {
        const entry = (await activityOf(h, c.id)).find((a) => a.direction === 'in' && a.statusCode === 409);
        expect(entry).toMatchObject({ outcome: 'skipped', issueId: issue.id, externalKey: `acme/refused#${number}` });
      });
      expect(changesOf(issue.id)).toHaveLength(0);
    } finally {
      h.issues.refuse.delete('WontFix');
    }
  });
});

describe('Jira and Linear', () => {
  it('maps a Jira transition through the status map', async () => {
    const { c, issue } = await linkedIssue(
      { kind: 'jira', name: 'Shop project', config: { baseUrl: jira.url, projectKey: 'SHOP', statusMap: { 'In Progress': 'InProgress' } }, credentials: { email: jira.email, apiToken: jira.apiToken } },
      'Moved in Jira',
    );
    jira.registerHook(hookUrl(h, c.id), c.inbound.secret);
    const key = jira.issues().find((i) => i.summary.includes('Moved in Jira'))!.key;
    expect(await jira.transitionIssue(key, 'In Progress')).toBe(200);
    await eventually(() => expect(changesOf(issue.id)).toMatchObject([{ to: 'InProgress', origin: `integration:${c.id}` }]));
  });

  it('maps a Linear state through its type: cancelled is WontFix', async () => {
    const { c, issue } = await linkedIssue({ kind: 'linear', name: 'Engineering', config: { teamId: TEAM, apiUrl: linear.apiUrl }, credentials: { apiKey: linear.apiKey } }, 'Moved in Linear');
    linear.registerHook(hookUrl(h, c.id), c.inbound.secret);
    const id = linear.issues().find((i) => i.title.includes('Moved in Linear'))!.id;
    expect(await linear.moveIssue(id, 'Canceled')).toBe(200);
    await eventually(() => expect(changesOf(issue.id)).toMatchObject([{ to: 'WontFix', origin: `integration:${c.id}` }]));
  });

  it('checks a Linear hook with the signing secret Linear made up, when the credentials carry it', async () => {
    const linearSecret = 'lin_wh_made_up_by_linear';
    const { c, issue } = await linkedIssue(
      { kind: 'linear', name: 'Linear-made secret', config: { teamId: TEAM, apiUrl: linear.apiUrl }, credentials: { apiKey: linear.apiKey, webhookSecret: linearSecret } },
      'Signed by Linear',
    );
    const id = linear.issues().find((i) => i.title.includes('Signed by Linear'))!.id;
    // Registered with the connection's own secret, the hook is refused: the tracker's wins.
    linear.registerHook(hookUrl(h, c.id), c.inbound.secret);
    expect(await linear.moveIssue(id, 'In Progress')).toBe(401);
    linear.registerHook(hookUrl(h, c.id), linearSecret);
    expect(await linear.moveIssue(id, 'Done')).toBe(200);
    await eventually(() => expect(changesOf(issue.id)).toMatchObject([{ to: 'Fixed' }]));
  });

  it('records a tracker status mapped to Duplicate as skipped: a duplicate needs its original', async () => {
    const { c, issue } = await linkedIssue(
      { kind: 'jira', name: 'Dup map', config: { baseUrl: jira.url, projectKey: 'SHOP', statusMap: { "Won't Do": 'Duplicate' } }, credentials: { email: jira.email, apiToken: jira.apiToken } },
      'Mapped to duplicate',
    );
    jira.registerHook(hookUrl(h, c.id), c.inbound.secret);
    const key = jira.issues().find((i) => i.summary.includes('Mapped to duplicate'))!.key;
    expect(await jira.transitionIssue(key, "Won't Do")).toBe(200);
    await eventually(async () => {
      const entry = (await activityOf(h, c.id)).find((a) => a.direction === 'in' && a.outcome === 'skipped');
      expect(entry?.error).toContain('Duplicate');
    });
    expect(changesOf(issue.id)).toHaveLength(0);
  });
});
