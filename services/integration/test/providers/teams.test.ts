import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeTeams, teamsCardProblem, type FakeTeams } from '@preflight/provider-fakes';
import { teamsProvider } from '../../src/providers/teams/index.ts';
import { teamsCard } from '../../src/providers/teams/card.ts';
import { ProviderError, type ChatClient, type ChatMessage } from '../../src/providers/provider.ts';
import { failureOf, issueCard, safeFetches } from './chat-fixtures.ts';

const fetches = safeFetches();
let teams: FakeTeams;
let webhookUrl: string;

beforeAll(async () => {
  teams = await startFakeTeams();
});
afterAll(() => teams.close());
beforeEach(() => {
  teams.setBehaviour({ mode: 'normal' });
  webhookUrl = teams.webhookUrl('QA channel');
});

const client = (timeoutMs = 5_000, allowPrivate = true): ChatClient => teamsProvider.client({}, { webhookUrl }, fetches.create(timeoutMs, allowPrivate));
const pathOf = (url: string) => new URL(url).pathname;
const cardAt = (url: string) => teams.waitForCard((c) => c.path === pathOf(url), 5_000);
type Card = { body: Array<{ type: string; text?: string; facts?: Array<{ title: string; value: string }> }>; actions: Array<{ type: string; title: string; url: string }> };
const cardOf = async (url: string) => (await cardAt(url)).card as unknown as Card;

describe('Teams connection settings', () => {
  it('takes an empty config and an http(s) webhook URL, and calls only that URL', () => {
    expect(teamsProvider.configSchema.safeParse({}).success).toBe(true);
    expect(teamsProvider.configSchema.safeParse({ channel: 'x' }).success).toBe(false);
    expect(teamsProvider.credentialsSchema.safeParse({}).error?.issues[0]?.message).toBe('Is required.');
    expect(teamsProvider.urls({}, { webhookUrl: 'https://example.logic.azure.com/workflows/1' })).toEqual(['https://example.logic.azure.com/workflows/1']);
  });
});

describe('Teams cards', () => {
  it('announces a created issue as an Adaptive Card with every fact and a button to the issue', async () => {
    const issue = issueCard();
    await expect(client().post({ event: 'IssueCreated', issue })).resolves.toEqual({ statusCode: 202, detail: 'accepted' });

    const posted = await cardAt(webhookUrl);
    expect(posted.flow).toBe('QA channel');
    expect(posted.message).toMatchObject({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null }] });
    expect(posted.card).toMatchObject({ $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4' });
    const card = posted.card as unknown as Card;
    expect(card.body.filter((e) => e.type === 'TextBlock').map((e) => e.text)).toEqual(['New issue', 'Checkout button does nothing']);
    expect(card.body.find((e) => e.type === 'FactSet')?.facts).toEqual([
      { title: 'Severity', value: 'High' },
      { title: 'Type', value: 'Bug' },
      { title: 'Campaign', value: 'Spring release' },
      { title: 'Issue', value: '#12' },
      { title: 'Page', value: 'https://shop.example.com/checkout?step=2' },
      { title: 'Reporter', value: 'tess@example.com' },
    ]);
    expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open in Preflight', url: issue.link }]);
  });

  it('expands to cards the Adaptive Card rules accept, for every event', () => {
    const issue = issueCard({ severity: null, reporter: null });
    const messages: ChatMessage[] = [
      { event: 'IssueCreated', issue },
      { event: 'IssueClosed', issue: { ...issue, status: 'Closed' }, oldStatus: 'Fixed', reason: null },
      { event: 'IssueAssigned', issue, assigneeName: null },
      { event: 'Other', issue: null, text: 'Campaign archived' },
    ];
    for (const message of messages) expect(teamsCardProblem(teamsCard(message))).toBeNull();
    expect(teamsCardProblem({ type: 'AdaptiveCard', version: '1.6', body: [] })).toMatch(/version/);
    expect(teamsCardProblem({ type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', $when: '${x}', text: 'y' }] })).toMatch(/template/);
  });

  it('keeps user text as data: template syntax and markup arrive as typed', async () => {
    const title = '${link} <script>alert(1)</script> & "quotes" \\ @{x}';
    await client().post({ event: 'IssueCreated', issue: issueCard({ title, reporter: '${$root.link}', campaignName: '<b>&amp;</b>' }) });
    const card = await cardOf(webhookUrl);
    expect(card.body.map((e) => e.text)).toContain(title);
    const facts = card.body.find((e) => e.type === 'FactSet')?.facts ?? [];
    expect(facts).toContainEqual({ title: 'Reporter', value: '${$root.link}' });
    expect(facts).toContainEqual({ title: 'Campaign', value: '<b>&amp;</b>' });
  });

  it('cuts a 5,000-character title instead of being refused', async () => {
    await client().post({ event: 'IssueCreated', issue: issueCard({ title: 't'.repeat(5000), pageUrl: `https://shop.example.com/${'p'.repeat(5000)}` }) });
    const card = await cardOf(webhookUrl);
    const shown = card.body.map((e) => e.text ?? '');
    expect(shown).toContain(`${'t'.repeat(149)}…`);
    expect(card.body.find((e) => e.type === 'FactSet')?.facts?.find((f) => f.title === 'Page')?.value).toHaveLength(1000);
  });

  it('sends other events as their one line with the button', async () => {
    const issue = issueCard({ status: 'Fixed' });
    await client().post({ event: 'IssueUpdated', issue, oldStatus: 'InProgress', reason: 'verified on staging' });
    const card = await cardOf(webhookUrl);
    expect(card.body).toEqual([{ type: 'TextBlock', text: '#12 Checkout button does nothing: InProgress → Fixed (verified on staging)', size: 'Large', weight: 'Bolder', wrap: true }]);
    expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open in Preflight', url: issue.link }]);
  });

  it('test() posts a short connected card', async () => {
    await expect(client().test()).resolves.toMatchObject({ statusCode: 202 });
    const card = await cardOf(webhookUrl);
    expect(card.body[0]?.text).toMatch(/^Preflight is connected/);
    expect(card.actions).toEqual([]);
  });
});

describe('Teams refusals', () => {
  const post = (c = client()) => failureOf(c.post({ event: 'IssueCreated', issue: issueCard() }));

  it('429 with Retry-After is rate-limited for that long', async () => {
    teams.setBehaviour({ mode: 'status', status: 429, retryAfterSeconds: 7 });
    expect(await post()).toMatchObject({ kind: 'rate-limited', statusCode: 429, retryAfterMs: 7000 });
  });

  it('a deleted flow or a wrong signature is the credentials, without the signature in the message', async () => {
    const sig = new URL(webhookUrl).searchParams.get('sig') ?? '';
    teams.revoke(webhookUrl);
    const revoked = await post();
    expect(revoked).toBeInstanceOf(ProviderError);
    expect(revoked).toMatchObject({ kind: 'credentials', statusCode: 404, message: expect.stringContaining('WorkflowNotFound') });
    expect(revoked.message).not.toContain(sig);

    webhookUrl = `${teams.webhookUrl()}x`;
    expect(await post()).toMatchObject({ kind: 'credentials', statusCode: 401 });
  });

  it('400 and 413 are rejected, 5xx unavailable', async () => {
    for (const [status, kind] of [[400, 'rejected'], [413, 'rejected'], [502, 'unavailable']] as const) {
      teams.setBehaviour({ mode: 'status', status, times: 1 });
      expect(await post()).toMatchObject({ kind, statusCode: status });
    }
  });

  it('a legacy connector answering 200 with body 1 is success too', async () => {
    teams.setBehaviour({ mode: 'status', status: 200, body: '1', times: 1 });
    await expect(client().test()).resolves.toEqual({ statusCode: 200, detail: '1' });
  });

  it('a hanging Teams is unavailable within the deadline', async () => {
    teams.setBehaviour({ mode: 'hang' });
    const started = Date.now();
    expect(await post(client(300))).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('300 ms') });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a private address is refused before anything is sent when private targets are not allowed', async () => {
    const before = teams.requests.length;
    expect(await post(client(5_000, false))).toMatchObject({ kind: 'rejected' });
    expect(teams.requests).toHaveLength(before);
  });
});

describe('the fake Teams', () => {
  const raw = (body: unknown) => fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const envelope = (content: unknown) => ({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content }] });

  it('refuses what Workflows and Teams refuse', async () => {
    expect((await raw(envelope({ type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', text: 'hi' }] }))).status).toBe(202);
    expect((await raw({ text: 'hi' })).status).toBe(400);
    expect((await raw(envelope({ type: 'AdaptiveCard', version: '1.4', body: [{ type: 'Media' }] }))).status).toBe(400);
    expect((await raw(envelope({ type: 'AdaptiveCard', version: '1.4', actions: [{ type: 'Action.OpenUrl' }] }))).status).toBe(400);
    expect((await raw(envelope({ type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', text: 'x'.repeat(30_000) }] }))).status).toBe(413);
    expect((await fetch(webhookUrl.replace(/sig=[^&]+/, 'sig=forged'), { method: 'POST', body: '{}' })).status).toBe(401);
  });
});
