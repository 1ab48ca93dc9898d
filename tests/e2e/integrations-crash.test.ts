import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGithub, startFakeSlack, type FakeGithub, type FakeSlack } from '@preflight/provider-fakes';
import { eventually } from '@preflight/testing';
import { call, freshTenant } from '../support/client.ts';
import { startSystem, type RunningSystem } from '../support/system.ts';

// The integration service killed (SIGKILL) mid-sync: nothing acknowledged is lost and nothing
// is made twice. A system of its own, since these tests kill one of its services (every replica
// of it, under E2E_REPLICAS); a short lease so a job whose replica died is taken again within seconds.
let sys: RunningSystem;
let slack: FakeSlack;
let github: FakeGithub;

beforeAll(async () => {
  [slack, github] = await Promise.all([startFakeSlack(), startFakeGithub()]);
  github.createRepo('acme', 'crash');
  sys = await startSystem({ INTEGRATION_LEASE_MS: '3000', INTEGRATION_POLL_INTERVAL_MS: '250' });
});
afterAll(async () => {
  await sys?.stop();
  await Promise.all([slack?.close(), github?.close()]);
});

const admin = (method: string, path: string, body?: unknown) => call(sys, method, path, { token: sys.adminToken, ...(body !== undefined ? { body } : {}) });

async function tenantWith(connection: Record<string, unknown>) {
  const t = await freshTenant(sys);
  await t.admin.setCampaignStatus(t.campaign.id, 'Active');
  const c = await admin('POST', `/admin/v1/organizations/${t.org.id}/integrations`, connection);
  expect(c.status).toBe(201);
  const file = async (title: string) => {
    const res = await call(sys, 'POST', `/api/v1/campaigns/${t.campaign.id}/issues`, { apiKey: t.keys.all!.key, body: { title, severity: 'High', type: 'Bug' } });
    expect(res.status).toBe(201);
    return res.body as { id: string; seqNumber: number };
  };
  return { t, c: c.body, file };
}

describe('the integration service killed mid-sync', () => {
  it('creates exactly one tracker issue when killed between the tracker’s answer and the commit of the link', async () => {
    const { file } = await tenantWith({ kind: 'github', name: 'Repo', config: { owner: 'acme', repo: 'crash', apiBaseUrl: github.url }, credentials: { token: github.addToken() } });
    const held = github.holdNextCreate();
    const issue = await file('Made once despite a crash');
    await held.created;
    await sys.restart('integration', 'SIGKILL');
    held.release();

    const links = await eventually(
      async () => {
        const res = await admin('GET', `/admin/v1/issues/${issue.id}/links`);
        expect(res.body).toHaveLength(1);
        return res.body;
      },
      { timeoutMs: 60_000 },
    );
    const made = github.issues('acme', 'crash').filter((i) => i.title.includes('Made once despite a crash'));
    expect(made).toHaveLength(1);
    expect(links[0].externalKey).toBe(`acme/crash#${made[0]!.number}`);
  });

  it('announces every issue filed while it was down, once each, after it comes back', async () => {
    const { file } = await tenantWith({ kind: 'slack', name: 'Channel', config: {}, credentials: { webhookUrl: slack.webhookUrl('#crash') } });
    await sys.stopService('integration', 'SIGKILL');
    const titles = Array.from({ length: 10 }, (_, i) => `Filed during the outage ${i}`);
    for (const title of titles) await file(title);
    await sys.restart('integration');

    await eventually(() => expect(slack.messages.filter((m) => m.channel === '#crash')).toHaveLength(titles.length), { timeoutMs: 60_000 });
    const texts = slack.messages.filter((m) => m.channel === '#crash').map((m) => JSON.stringify(m.body));
    for (const title of titles) expect(texts.filter((t) => t.includes(title))).toHaveLength(1);
  });
});
