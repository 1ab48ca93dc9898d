import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGithub, startFakeSlack, type FakeGithub, type FakeSlack } from '@preflight/provider-fakes';
import { eventually } from '@preflight/testing';
import { activityOf, connect, integrationSuite } from './harness.ts';

const h = integrationSuite();
let github: FakeGithub;
let slack: FakeSlack;

beforeAll(async () => {
  [github, slack] = await Promise.all([startFakeGithub(), startFakeSlack()]);
});
afterAll(async () => {
  await Promise.all([github?.close(), slack?.close()]);
});

describe('the inbound secret', () => {
  it('is replaced by POST …/inbound-secret: shown once, the old one refused from then on', async () => {
    const orgId = randomUUID();
    const c = await connect(h, orgId, { kind: 'github', name: 'Repo', config: { owner: 'acme', repo: 'shop', apiBaseUrl: github.url }, credentials: { token: github.addToken() } });
    const body = JSON.stringify({ action: 'opened', issue: { number: 1 }, repository: { full_name: 'acme/shop' } });
    const send = (secret: string) =>
      h.call('POST', `/integrations/v1/hooks/${c.id}`, {
        as: null,
        raw: body,
        headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
      });
    expect((await send(c.inbound.secret)).status).toBe(200);

    const rotated = await h.call('POST', `/admin/v1/integrations/${c.id}/inbound-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ url: c.inbound.url, secret: expect.any(String) });
    expect(rotated.body.secret).not.toBe(c.inbound.secret);
    expect((await send(c.inbound.secret)).status).toBe(401);
    expect((await send(rotated.body.secret)).status).toBe(200);
    const listed = await h.call('GET', `/admin/v1/organizations/${orgId}/integrations`);
    expect(listed.body).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(rotated.body.secret);
  });

  it('is a 409 for a chat channel, which receives no hooks, and a 404 for an unknown connection', async () => {
    const c = await connect(h, randomUUID(), { kind: 'slack', name: 'Channel', config: {}, credentials: { webhookUrl: slack.webhookUrl() } });
    const chat = await h.call('POST', `/admin/v1/integrations/${c.id}/inbound-secret`);
    expect(chat.status).toBe(409);
    expect(chat.headers.get('content-type')).toContain('application/problem+json');
    expect((await h.call('POST', `/admin/v1/integrations/${randomUUID()}/inbound-secret`)).status).toBe(404);
  });
});

describe('retrying what was given up', () => {
  it('runs the failed jobs of a connection again from their first try', async () => {
    const orgId = randomUUID();
    github.createRepo('acme', 'retry');
    const token = github.addToken();
    // A repository that does not exist: the create is refused (404) and given up at once.
    const c = await connect(h, orgId, { kind: 'github', name: 'Repo', config: { owner: 'acme', repo: 'renamed', apiBaseUrl: github.url }, credentials: { token } });
    const issue = await h.fileIssue(orgId, randomUUID(), { title: 'Given up, then retried' });
    await eventually(async () => expect((await activityOf(h, c.id)).map((a) => `${a.action} ${a.outcome}`)).toContain('create failed'));

    const fixed = await h.call('PATCH', `/admin/v1/integrations/${c.id}`, { body: { config: { owner: 'acme', repo: 'retry', apiBaseUrl: github.url } } });
    expect(fixed.status).toBe(200);
    const retried = await h.call('POST', `/admin/v1/integrations/${c.id}/retry`);
    expect(retried.body).toEqual({ requeued: 1 });
    await github.waitForIssue((i) => i.title.includes('Given up, then retried'));
    await eventually(async () => expect((await h.call('GET', `/admin/v1/issues/${issue.id}/links`)).body).toHaveLength(1));
    expect((await h.call('POST', `/admin/v1/integrations/${c.id}/retry`)).body).toEqual({ requeued: 0 });
  });
});
