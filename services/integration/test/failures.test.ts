import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeGithub, startFakeSlack, type FakeSlack } from '@preflight/provider-fakes';
import { eventually } from '@preflight/testing';
import { activityOf, connect, connectionOf, integrationSuite, jobsOf, metricValue } from './harness.ts';

// A call budget with room to spare: the isolation test asserts other calls finish while these still hang.
// The lease stays well above a job's longest run (as in production), so no try is claimed twice.
const CALL_TIMEOUT_MS = 2_000;
const h = integrationSuite({ INTEGRATION_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS), INTEGRATION_LEASE_MS: '20000' });
const fakes: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

const said = (m: { body: unknown }) => JSON.stringify(m.body);
const outcomes = async (connectionId: string) => (await activityOf(h, connectionId)).map((a) => [a.action, a.outcome, a.statusCode]);
const states = async (connectionId: string) => (await jobsOf(h, connectionId)).map((j) => j.state);

/** A Slack channel of its own (a fake of its own, so behaviours never leak between tests) for a new organisation. */
async function channel(name: string): Promise<{ orgId: string; slack: FakeSlack; c: any }> {
  const slack = await startFakeSlack();
  fakes.push(slack);
  const orgId = randomUUID();
  const c = await connect(h, orgId, { kind: 'slack', name, config: {}, credentials: { webhookUrl: slack.webhookUrl(`#${name}`) } });
  return { orgId, slack, c };
}

describe('provider refusals and outages', () => {
  it('waits out a 429 for its Retry-After and delivers the message once, without spending a try', async () => {
    const { orgId, slack, c } = await channel('limited');
    slack.setBehaviour({ mode: 'status', status: 429, retryAfterSeconds: 1, times: 1 });
    await h.fileIssue(orgId, randomUUID(), { title: 'Rate limited once' });

    await slack.waitForMessage((m) => said(m).includes('Rate limited once'));
    await eventually(async () => expect(await jobsOf(h, c.id)).toMatchObject([{ state: 'done', attempts: 1 }]));
    expect(slack.messages).toHaveLength(1);
    const [refused, accepted] = slack.requests;
    expect(slack.requests).toHaveLength(2);
    expect(accepted!.at - refused!.at).toBeGreaterThanOrEqual(900);
    // Newest first: the retry entry with the 429 came before the success.
    expect(await outcomes(c.id)).toEqual([
      ['announce', 'succeeded', 200],
      ['announce', 'retrying', 429],
    ]);
    expect(await connectionOf(h, orgId, c.id)).toMatchObject({ status: 'active', lastError: null });
  });

  it('retries a 5xx after about a second, shows the connection failing meanwhile and active after', async () => {
    const { orgId, slack, c } = await channel('flaky');
    slack.setBehaviour({ mode: 'status', status: 503 });
    await h.fileIssue(orgId, randomUUID(), { title: 'Provider briefly down' });

    const during = await eventually(async () => {
      const now = await connectionOf(h, orgId, c.id);
      expect(now.status).toBe('failing');
      return now;
    });
    slack.setBehaviour({ mode: 'normal' });
    expect(during.lastError).toMatch(/503/);
    expect(slack.messages).toHaveLength(0);

    await slack.waitForMessage((m) => said(m).includes('Provider briefly down'));
    const after = await eventually(async () => {
      const now = await connectionOf(h, orgId, c.id);
      expect(now).toMatchObject({ status: 'active', lastError: null, lastSuccessAt: expect.any(String) });
      return now;
    });
    expect(after.lastSuccessAt).toEqual(expect.any(String));
    const [failed, retried] = slack.requests;
    expect(slack.requests).toHaveLength(2);
    // The first wait is 1 s ± 10 %; the next would be 5 s.
    expect(retried!.at - failed!.at).toBeGreaterThanOrEqual(900);
    expect(retried!.at - failed!.at).toBeLessThan(4_000);
    expect(slack.messages).toHaveLength(1);
    expect(await outcomes(c.id)).toEqual([
      ['announce', 'succeeded', 200],
      ['announce', 'retrying', 503],
    ]);
    expect(await jobsOf(h, c.id)).toMatchObject([{ state: 'done', attempts: 2 }]);
  });

  it("keeps a hanging provider to its own connection: another organisation's messages go out, its breaker opens alone, and it recovers", async () => {
    const stuck = await channel('stuck');
    const other = await channel('other');
    stuck.slack.setBehaviour({ mode: 'hang' });
    const campaignId = randomUUID();
    const titles = Array.from({ length: 6 }, (_, i) => `Held up ${i}`);
    for (const title of titles) await h.fileIssue(stuck.orgId, campaignId, { title });
    await eventually(() => expect(stuck.slack.requests).toHaveLength(6));

    await h.fileIssue(other.orgId, randomUUID(), { title: 'Not held up' });
    await other.slack.waitForMessage((m) => said(m).includes('Not held up'));
    // When it arrived, every call of the stuck connection was still waiting for an answer.
    expect(await states(stuck.c.id)).toEqual(titles.map(() => 'running'));
    expect(await activityOf(h, stuck.c.id)).toEqual([]);

    // The calls time out; enough failures open that connection's breaker (and only its).
    await eventually(async () => expect(await metricValue(h, 'integration_circuit_breakers_open')).toBe(1), { timeoutMs: CALL_TIMEOUT_MS + 5_000 });
    // The breaker opens at the failure; the connection's health is written by the results' next group commit.
    await eventually(async () => expect(await connectionOf(h, stuck.orgId, stuck.c.id)).toMatchObject({ status: 'failing', lastError: expect.stringMatching(/no answer within/) }));
    // The provider is back before the jobs' first retry falls due (1 s after the timeouts).
    stuck.slack.setBehaviour({ mode: 'normal' });
    await h.fileIssue(other.orgId, randomUUID(), { title: 'Still not held up' });
    await other.slack.waitForMessage((m) => said(m).includes('Still not held up'));
    expect(await connectionOf(h, other.orgId, other.c.id)).toMatchObject({ status: 'active', lastError: null });

    for (const title of titles) await stuck.slack.waitForMessage((m) => said(m).includes(title), 15_000);
    await eventually(async () => expect(await states(stuck.c.id)).toEqual(titles.map(() => 'done')));
    expect(stuck.slack.messages).toHaveLength(6);
    expect(other.slack.messages).toHaveLength(2);
    await eventually(async () => expect(await metricValue(h, 'integration_circuit_breakers_open')).toBe(0));
    expect(await connectionOf(h, stuck.orgId, stuck.c.id)).toMatchObject({ status: 'active', lastError: null });
  });
});

describe('crashes and restarts', () => {
  for (const restart of [false, true]) {
    it(`makes exactly one tracker issue when the create's answer never arrives${restart ? ' and the service restarts' : ''}`, async () => {
      const github = await startFakeGithub();
      fakes.push(github);
      github.createRepo('acme', 'once');
      const orgId = randomUUID();
      const c = await connect(h, orgId, { kind: 'github', name: 'Once', config: { owner: 'acme', repo: 'once', apiBaseUrl: github.url }, credentials: { token: github.addToken() } });
      const held = github.holdNextCreate();
      try {
        const issue = await h.fileIssue(orgId, randomUUID(), { title: 'Made once' });
        const made = await held.created;
        // Shutdown lets the call in flight end: it times out unanswered and the job waits for another try.
        if (restart) await h.restart();

        const links = await eventually(
          async () => {
            const res = await h.call('GET', `/admin/v1/issues/${issue.id}/links`);
            expect(res.body).toHaveLength(1);
            return res.body;
          },
          { timeoutMs: CALL_TIMEOUT_MS + 8_000 },
        );
        expect(links[0]).toMatchObject({ integrationId: c.id, kind: 'github', externalKey: `acme/once#${made.number}`, url: made.html_url });
        expect(github.issues('acme', 'once')).toHaveLength(1);
        // The retry found the issue by its marker and linked it instead of creating another (its
        // result is recorded by the worker's next group commit, a moment after the link).
        const activity = await eventually(async () => {
          const entries = await outcomes(c.id);
          expect(entries[0]).toEqual(['link', 'succeeded', 200]);
          return entries;
        });
        expect(activity).toContainEqual(['create', 'retrying', null]);
        expect(activity).not.toContainEqual(['create', 'succeeded', 201]);
        expect(await states(c.id)).toEqual(['done']);
      } finally {
        held.release();
      }
    });
  }

  it('keeps queued jobs across a restart and delivers them once the provider is back', async () => {
    const { orgId, slack, c } = await channel('restarted');
    slack.setBehaviour({ mode: 'status', status: 503 });
    await h.fileIssue(orgId, randomUUID(), { title: 'Queued across a restart' });
    await eventually(async () => expect(await outcomes(c.id)).toEqual([['announce', 'retrying', 503]]));

    await h.restart();
    // Only the restarted service can deliver it: the provider answers again from now on.
    slack.setBehaviour({ mode: 'normal' });
    await slack.waitForMessage((m) => said(m).includes('Queued across a restart'), 15_000);
    await eventually(async () => expect(await states(c.id)).toEqual(['done']));
    expect(slack.messages).toHaveLength(1);
    expect((await outcomes(c.id))[0]).toEqual(['announce', 'succeeded', 200]);
  });
});
