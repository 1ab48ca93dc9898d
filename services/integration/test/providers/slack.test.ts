import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '@preflight/provider-fakes';
import { slackProvider } from '../../src/providers/slack/index.ts';
import { ProviderError, type ChatClient } from '../../src/providers/provider.ts';
import { failureOf, issueCard, safeFetches } from './chat-fixtures.ts';

const fetches = safeFetches();
let slack: FakeSlack;
let webhookUrl: string;

beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(() => slack.close());
beforeEach(() => {
  slack.setBehaviour({ mode: 'normal' });
  webhookUrl = slack.webhookUrl('#qa');
});

const client = (timeoutMs = 5_000, allowPrivate = true): ChatClient => slackProvider.client({}, { webhookUrl }, fetches.create(timeoutMs, allowPrivate));
const postedTo = (url: string) => slack.waitForMessage((m) => url.endsWith(m.path), 5_000);
type Block = { type: string; text?: { text: string }; fields?: Array<{ text: string }>; elements?: Array<{ url: string; text: { text: string } }> };
const blocksOf = async (url: string) => (await postedTo(url)).body.blocks as Block[];

describe('Slack connection settings', () => {
  it('takes an empty config and an http(s) webhook URL, and calls only that URL', () => {
    expect(slackProvider.configSchema.safeParse({}).success).toBe(true);
    expect(slackProvider.configSchema.safeParse({ channel: '#qa' }).error?.issues[0]?.message).toMatch(/^Must be /);
    expect(slackProvider.credentialsSchema.safeParse({ webhookUrl: 'ftp://hooks.example.com/x' }).error?.issues[0]?.message).toBe('Must be an http or https URL.');
    expect(slackProvider.credentialsSchema.safeParse({ webhookUrl: 'https://hooks.slack.com/services/T1/B1/x', token: 'x' }).success).toBe(false);
    expect(slackProvider.urls({}, { webhookUrl: 'https://hooks.slack.com/services/T1/B1/x' })).toEqual(['https://hooks.slack.com/services/T1/B1/x']);
  });
});

describe('Slack messages', () => {
  it('announces a created issue as blocks with every field and a button to the issue', async () => {
    const issue = issueCard();
    const result = await client().post({ event: 'IssueCreated', issue });
    expect(result).toEqual({ statusCode: 200, detail: 'ok' });

    const message = await postedTo(webhookUrl);
    expect(message.channel).toBe('#qa');
    expect(message.body.text).toBe('New issue #12 Checkout button does nothing');
    const [header, section, actions] = message.body.blocks as Block[];
    expect(header).toMatchObject({ type: 'header', text: { type: 'plain_text', text: 'Checkout button does nothing' } });
    expect(section?.fields?.map((f) => f.text)).toEqual([
      '*Severity*\nHigh',
      '*Type*\nBug',
      '*Campaign*\nSpring release',
      '*Issue*\n#12',
      '*Page*\nhttps://shop.example.com/checkout?step=2',
      '*Reporter*\ntess@example.com',
    ]);
    expect(actions?.elements?.[0]).toMatchObject({ type: 'button', url: issue.link, text: { text: 'Open in Preflight' } });
  });

  it('leaves out the fields an issue does not have', async () => {
    await client().post({ event: 'IssueCreated', issue: issueCard({ severity: null, pageUrl: null, reporter: null, campaignName: null }) });
    const [, section] = await blocksOf(webhookUrl);
    expect(section?.fields?.map((f) => f.text.split('\n')[0])).toEqual(['*Type*', '*Issue*']);
  });

  it("escapes Slack's control characters in what users wrote, so it cannot link, mention or inject", async () => {
    const issue = issueCard({ title: '<script>alert(1)</script> & <!channel>', reporter: '<@U0123> & co', campaignName: '<https://evil.example|Click me>', pageUrl: 'https://shop.example.com/?a=1&b=<2>' });
    await client().post({ event: 'IssueCreated', issue });
    const message = await postedTo(webhookUrl);
    expect(message.body.text).toBe('New issue #12 &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;!channel&gt;');
    const [header, section] = message.body.blocks as Block[];
    // plain_text is never parsed, so the header shows the title as typed.
    expect(header?.text?.text).toBe('<script>alert(1)</script> & <!channel>');
    const fields = section?.fields?.map((f) => f.text) ?? [];
    expect(fields).toContain('*Reporter*\n&lt;@U0123&gt; &amp; co');
    expect(fields).toContain('*Campaign*\n&lt;https://evil.example|Click me&gt;');
    expect(fields).toContain('*Page*\nhttps://shop.example.com/?a=1&amp;b=&lt;2&gt;');
    expect(fields.join('')).not.toMatch(/<|&(?!amp;|lt;|gt;)/);
  });

  it('cuts text to the Block Kit limits instead of being refused', async () => {
    const title = 'Very long title '.repeat(313).slice(0, 5000);
    await client().post({ event: 'IssueCreated', issue: issueCard({ title, reporter: '&'.repeat(3000) }) });
    const message = await postedTo(webhookUrl);
    const [header, section] = message.body.blocks as Block[];
    expect(header?.text?.text).toHaveLength(150);
    expect(header?.text?.text.endsWith('…')).toBe(true);
    const reporter = section?.fields?.find((f) => f.text.startsWith('*Reporter*'))?.text ?? '';
    expect(reporter.length).toBeLessThanOrEqual(2000);
    expect(reporter).toMatch(/^\*Reporter\*\n(&amp;)+…$/);

    const reason = 'r'.repeat(5000);
    webhookUrl = slack.webhookUrl();
    await client().post({ event: 'IssueUpdated', issue: issueCard({ status: 'Fixed' }), oldStatus: 'InProgress', reason });
    const [line] = await blocksOf(webhookUrl);
    expect(line?.text?.text).toHaveLength(3000);
    expect(line?.text?.text.endsWith('r…')).toBe(true);
  });

  it('sends other events as one line with the button', async () => {
    const issue = issueCard({ status: 'Fixed' });
    await client().post({ event: 'IssueUpdated', issue, oldStatus: 'InProgress', reason: 'verified on staging' });
    const message = await postedTo(webhookUrl);
    expect(message.body.text).toBe('#12 Checkout button does nothing: InProgress → Fixed (verified on staging)');
    expect(message.body.blocks).toEqual([
      {
        type: 'section',
        text: { type: 'mrkdwn', text: '#12 Checkout button does nothing: InProgress → Fixed (verified on staging)' },
        accessory: { type: 'button', action_id: 'open-issue', text: { type: 'plain_text', text: 'Open in Preflight' }, url: issue.link },
      },
    ]);

    const other = slack.webhookUrl();
    await slackProvider.client({}, { webhookUrl: other }, fetches.create()).post({ event: 'IssueAssigned', issue, assigneeName: 'Dana' });
    expect((await postedTo(other)).body.text).toBe('#12 Checkout button does nothing: assigned to Dana');
  });

  it('test() posts a short connected message', async () => {
    await expect(client().test()).resolves.toEqual({ statusCode: 200, detail: 'ok' });
    expect((await postedTo(webhookUrl)).body.text).toMatch(/^Preflight is connected/);
  });
});

describe('Slack refusals', () => {
  const post = (c = client()) => failureOf(c.post({ event: 'IssueCreated', issue: issueCard() }));

  it('429 with Retry-After is rate-limited for that long', async () => {
    slack.setBehaviour({ mode: 'status', status: 429, retryAfterSeconds: 7, body: 'rate_limited' });
    const error = await post();
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'rate-limited', statusCode: 429, retryAfterMs: 7000 });
  });

  it('a revoked webhook or an archived channel is the credentials, without the URL in the message', async () => {
    slack.revoke(webhookUrl);
    const revoked = await post();
    expect(revoked).toMatchObject({ kind: 'credentials', statusCode: 404 });
    expect(revoked.message).toContain('no_service');
    expect(revoked.message).not.toContain(new URL(webhookUrl).pathname.split('/').pop());

    webhookUrl = slack.webhookUrl();
    slack.archive(webhookUrl);
    expect(await post()).toMatchObject({ kind: 'credentials', statusCode: 410 });

    webhookUrl = `${slack.webhookUrl().slice(0, -4)}abcd`;
    expect(await post()).toMatchObject({ kind: 'credentials', statusCode: 403 });
  });

  it('400 is rejected and 5xx unavailable', async () => {
    slack.setBehaviour({ mode: 'status', status: 400, body: 'invalid_blocks', times: 1 });
    expect(await post()).toMatchObject({ kind: 'rejected', statusCode: 400, message: expect.stringContaining('invalid_blocks') });
    slack.setBehaviour({ mode: 'status', status: 503, times: 1 });
    expect(await post()).toMatchObject({ kind: 'unavailable', statusCode: 503 });
    expect(slack.requests.filter((r) => webhookUrl.endsWith(r.url))).toHaveLength(2);
  });

  it('a hanging Slack is unavailable within the deadline, and not retried by the SDK', async () => {
    slack.setBehaviour({ mode: 'hang' });
    const started = Date.now();
    const error = await post(client(300));
    expect(error).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('300 ms') });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(slack.requests.filter((r) => webhookUrl.endsWith(r.url))).toHaveLength(1);
  });

  it('a private address is refused before anything is sent when private targets are not allowed', async () => {
    const before = slack.requests.length;
    const error = await post(client(5_000, false));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'rejected' });
    expect(slack.requests).toHaveLength(before);
  });
});

describe('the fake Slack', () => {
  const raw = (body: unknown) => fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it("refuses what Slack refuses, so the limits above are Slack's", async () => {
    const header = (text: string) => ({ blocks: [{ type: 'header', text: { type: 'plain_text', text } }] });
    expect(await (await raw(header('x'.repeat(151)))).text()).toBe('invalid_blocks');
    expect((await raw(header('x'.repeat(150)))).status).toBe(200);
    const fields = Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' }));
    expect((await raw({ blocks: [{ type: 'section', fields }] })).status).toBe(400);
    expect(await (await raw({ blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3001) } }] })).text()).toBe('invalid_blocks');
    expect(await (await raw({ blocks: [{ type: 'table' }] })).text()).toBe('invalid_blocks');
    expect(await (await raw({ username: 'bot' })).text()).toBe('no_text');
    expect(await (await fetch(webhookUrl, { method: 'POST', body: 'text=hi' })).text()).toBe('invalid_payload');
  });
});
