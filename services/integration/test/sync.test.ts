import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGithub, startFakeSlack, startFakeTeams, type FakeGithub, type FakeSlack, type FakeTeams } from '@preflight/provider-fakes';
import { sql } from '@preflight/db';
import { createEvent, toTimestamp } from '@preflight/events';
import { eventually } from '@preflight/testing';
import { activityOf, connect, consumedSince, integrationSuite } from './harness.ts';

const h = integrationSuite();
let slack: FakeSlack;
let teams: FakeTeams;
let github: FakeGithub;
let token: string;

beforeAll(async () => {
  [slack, teams, github] = await Promise.all([startFakeSlack(), startFakeTeams(), startFakeGithub()]);
  token = github.addToken();
});
afterAll(async () => {
  await Promise.all([slack?.close(), teams?.close(), github?.close()]);
});

const slackText = (m: { body: unknown }) => JSON.stringify(m.body);

describe('chat channels', () => {
  it('announces a new issue in Slack and Teams with its fields and a link to it', async () => {
    const orgId = randomUUID();
    const campaignId = randomUUID();
    const slackUrl = slack.webhookUrl('#launch');
    await connect(h, orgId, { kind: 'slack', name: 'Launch channel', config: {}, credentials: { webhookUrl: slackUrl } });
    await connect(h, orgId, { kind: 'teams', name: 'QA team', config: {}, credentials: { webhookUrl: teams.webhookUrl() } });

    const issue = await h.fileIssue(orgId, campaignId, { title: 'Price shows NaN', severity: 'Critical' });

    const message = await slack.waitForMessage((m) => slackText(m).includes('Price shows NaN'));
    expect(message.channel).toBe('#launch');
    const text = slackText(message);
    for (const shown of ['Critical', 'Bug', 'Spring release', `#${issue.seqNumber}`, 'https://shop.example.com/checkout', 'tess@example.com', `https://app.preflight.test/issues/${issue.id}`]) {
      expect(text).toContain(shown);
    }
    const card = await teams.waitForCard((c) => JSON.stringify(c.card).includes('Price shows NaN'));
    expect(JSON.stringify(card.card)).toContain(`https://app.preflight.test/issues/${issue.id}`);
  });

  it('honours the campaign filter, the severity floor, the selected events and pausing', async () => {
    const orgId = randomUUID();
    const watched = randomUUID();
    const url = slack.webhookUrl('#filtered');
    const c = await connect(h, orgId, { kind: 'slack', name: 'Filtered', config: {}, credentials: { webhookUrl: url }, campaignIds: [watched], minSeverity: 'High', events: ['IssueCreated', 'IssueClosed'] });

    await h.fileIssue(orgId, randomUUID(), { title: 'Other campaign', severity: 'Critical' });
    await h.fileIssue(orgId, watched, { title: 'Too minor', severity: 'Low' });
    const shown = await h.fileIssue(orgId, watched, { title: 'Watched and severe', severity: 'High' });
    await slack.waitForMessage((m) => slackText(m).includes('Watched and severe'));
    await h.moveIssue(shown.id, 'InProgress');
    await h.moveIssue(shown.id, 'Closed', { reason: 'Shipped' });
    await slack.waitForMessage((m) => m.channel === '#filtered' && slackText(m).includes('Closed'));

    const paused = await h.call('PATCH', `/admin/v1/integrations/${c.id}`, { body: { paused: true } });
    expect(paused.status).toBe(200);
    expect(paused.body.paused).toBe(true);
    const consumed = await h.consumedEvents();
    await h.fileIssue(orgId, watched, { title: 'Filed while paused', severity: 'Critical' });
    await eventually(async () => expect(await h.consumedEvents()).toBe(consumed + 1));
    await h.call('PATCH', `/admin/v1/integrations/${c.id}`, { body: { paused: false } });
    await h.fileIssue(orgId, watched, { title: 'Filed after resuming', severity: 'Critical' });
    await slack.waitForMessage((m) => slackText(m).includes('Filed after resuming'));

    const texts = slack.messages.filter((m) => m.channel === '#filtered').map(slackText);
    expect(texts.some((t) => t.includes('Other campaign'))).toBe(false);
    expect(texts.some((t) => t.includes('Too minor'))).toBe(false);
    expect(texts.some((t) => t.includes('Filed while paused'))).toBe(false);
    // Moving to InProgress is an IssueUpdated, which this channel did not select: one status message, the close.
    expect(texts.filter((t) => t.includes('Watched and severe'))).toHaveLength(2);
  });
});

describe('organisations without a connection', () => {
  it('acks their events without a transaction, and a connection made counts from the next event', async () => {
    const orgId = randomUUID();
    const campaignId = randomUUID();
    const inboxRows = async () => Number((await sql<{ n: string }>`select count(*) as n from inbox`.execute(h.service.database.db)).rows[0]!.n);
    const skipped = await consumedSince(h, 'skipped');
    const stored = await inboxRows();
    await h.fileIssue(orgId, campaignId, { title: 'Nobody listens', severity: 'Critical' });
    await eventually(async () => expect(await consumedSince(h, 'skipped')).toBe(skipped + 1));
    expect(await inboxRows()).toBe(stored);

    // "No connection" was the answer a moment ago; the next event must see the new one.
    const url = slack.webhookUrl('#late');
    const c = await connect(h, orgId, { kind: 'slack', name: 'Late', config: {}, credentials: { webhookUrl: url } });
    await h.fileIssue(orgId, campaignId, { title: 'Filed right after connecting', severity: 'Critical' });
    await slack.waitForMessage((m) => m.channel === '#late' && slackText(m).includes('Filed right after connecting'));

    expect((await h.call('PATCH', `/admin/v1/integrations/${c.id}`, { body: { paused: true } })).status).toBe(200);
    const beforePause = await consumedSince(h, 'all');
    await h.fileIssue(orgId, campaignId, { title: 'Filed while paused', severity: 'Critical' });
    await eventually(async () => expect(await consumedSince(h, 'all')).toBe(beforePause + 1));
    expect((await h.call('PATCH', `/admin/v1/integrations/${c.id}`, { body: { paused: false } })).status).toBe(200);
    await h.fileIssue(orgId, campaignId, { title: 'Filed right after resuming', severity: 'Critical' });
    await slack.waitForMessage((m) => m.channel === '#late' && slackText(m).includes('Filed right after resuming'));
    expect(slack.messages.filter((m) => m.channel === '#late').map(slackText).some((t) => t.includes('Filed while paused'))).toBe(false);
  });
});

describe('campaign events in chat', () => {
  it('announces a selected campaign event whatever the severity floor, which is about issues', async () => {
    const orgId = randomUUID();
    const campaignId = randomUUID();
    await connect(h, orgId, { kind: 'slack', name: 'Launches', config: {}, credentials: { webhookUrl: slack.webhookUrl('#launches') }, events: ['CampaignLaunched'], minSeverity: 'Critical' });
    await h.pub.publish(createEvent('CampaignLaunched', { campaignId, orgId, name: 'Autumn sale', status: 'Active', occurredAt: toTimestamp(new Date()) }), { orgId });
    const message = await slack.waitForMessage((m) => m.channel === '#launches');
    expect(slackText(message)).toContain('Autumn sale');
    expect(slackText(message)).toContain('launched');
  });
});

describe('issue trackers', () => {
  it('creates one GitHub issue per Preflight issue, links it, and follows status changes', async () => {
    const orgId = randomUUID();
    github.createRepo('acme', 'shop');
    const c = await connect(h, orgId, { kind: 'github', name: 'Shop repo', config: { owner: 'acme', repo: 'shop', apiBaseUrl: github.url, labels: ['preflight'] }, credentials: { token } });
    expect(c.inbound.url).toBe(`https://api.preflight.test/integrations/v1/hooks/${c.id}`);
    expect(c.inbound.secret).toEqual(expect.any(String));

    const issue = await h.fileIssue(orgId, randomUUID(), { title: 'Cart empties on reload' });
    const created = await github.waitForIssue((i) => i.title.includes('Cart empties on reload'));
    expect(created.labels).toEqual(expect.arrayContaining(['preflight', 'severity: High', 'type: Bug']));

    const links = await eventually(async () => {
      const res = await h.call('GET', `/admin/v1/issues/${issue.id}/links`);
      expect(res.body).toHaveLength(1);
      return res.body;
    });
    expect(links[0]).toMatchObject({ integrationId: c.id, kind: 'github', externalKey: `acme/shop#${created.number}` });

    await h.moveIssue(issue.id, 'Fixed');
    await eventually(() => expect(github.issues('acme', 'shop').find((i) => i.number === created.number)?.state).toBe('closed'));
    await h.moveIssue(issue.id, 'InProgress');
    await eventually(() => expect(github.issues('acme', 'shop').find((i) => i.number === created.number)?.state).toBe('open'));
    expect(github.issues('acme', 'shop').filter((i) => i.title.includes('Cart empties on reload'))).toHaveLength(1);

    const activity = await activityOf(h, c.id);
    expect(activity.map((a) => `${a.direction} ${a.action} ${a.outcome}`)).toEqual(expect.arrayContaining(['out create succeeded', 'out sync-status succeeded']));
  });

  it('does not send a change back to the tracker it came from', async () => {
    const orgId = randomUUID();
    github.createRepo('acme', 'echo');
    const c = await connect(h, orgId, { kind: 'github', name: 'Echo repo', config: { owner: 'acme', repo: 'echo', apiBaseUrl: github.url }, credentials: { token } });
    const issue = await h.fileIssue(orgId, randomUUID(), { title: 'Echo check' });
    const created = await github.waitForIssue((i) => i.title.includes('Echo check'));
    await eventually(async () => expect((await h.call('GET', `/admin/v1/issues/${issue.id}/links`)).body).toHaveLength(1));
    const patchesBefore = github.requests.filter((r) => r.method === 'PATCH').length;

    // As if the issue service applied a change this tracker reported: origin names the connection.
    await h.moveIssue(issue.id, 'Fixed', { origin: `integration:${c.id}` });
    // A later change from Preflight itself is still sent, so the first was skipped, not delayed.
    await h.moveIssue(issue.id, 'Closed');
    await eventually(async () => {
      const syncs = (await activityOf(h, c.id)).filter((a) => a.action === 'sync-status');
      expect(syncs).toHaveLength(1);
    });
    expect(github.requests.filter((r) => r.method === 'PATCH').length).toBe(patchesBefore + 1);
    expect(github.issues('acme', 'echo').find((i) => i.number === created.number)?.state).toBe('closed');
  });
});
