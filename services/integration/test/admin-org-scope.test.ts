import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ENDPOINTS } from '@preflight/contract';
import { startFakeGithub, startFakeSlack, type FakeGithub, type FakeSlack } from '@preflight/provider-fakes';
import { answersOf, eventually, memberOf, memberRoutes, OPERATOR, schemaRows, withFreshIds, type ScopeCase } from '@preflight/testing';
import { activityOf, connect, integrationSuite, jobsOf } from './harness.ts';

/*
 * Console members reach the integration settings through the gateway, confined to their
 * organisation: another organisation's connection, issue links or organisation path are
 * answered exactly like an unknown id, and nothing changes or is sent (issue 24).
 */

const h = integrationSuite();
let github: FakeGithub;
let slack: FakeSlack;

beforeAll(async () => {
  [github, slack] = await Promise.all([startFakeGithub(), startFakeSlack()]);
  github.createRepo('acme', 'scoped');
});
afterAll(async () => {
  await Promise.all([github?.close(), slack?.close()]);
});

/** A GitHub connection of an organisation that has synced one issue (a link, activity, a finished job). */
interface Fixture {
  orgId: string;
  connectionId: string;
  issueId: string;
}

async function fixture(orgId: string = randomUUID()): Promise<Fixture> {
  const c = await connect(h, orgId, { kind: 'github', name: 'Repo', config: { owner: 'acme', repo: 'scoped', apiBaseUrl: github.url }, credentials: { token: github.addToken() } });
  const issue = await h.fileIssue(orgId, randomUUID(), { title: `Scoped ${randomUUID()}` });
  await eventually(async () => expect((await h.call('GET', `/admin/v1/issues/${issue.id}/links`)).body).toHaveLength(1));
  await eventually(async () => expect((await jobsOf(h, c.id)).map((j) => j.state)).toEqual(['done']));
  return { orgId, connectionId: c.id, issueId: issue.id };
}

// The delete last: every other route needs the connection.
const CASES: Array<ScopeCase<Fixture>> = [
  { route: 'adminListIntegrations', call: (f, as) => h.call('GET', `/admin/v1/organizations/${f.orgId}/integrations`, { as }), ok: 200 },
  {
    route: 'adminCreateIntegration',
    call: (f, as) => h.call('POST', `/admin/v1/organizations/${f.orgId}/integrations`, { as, body: { kind: 'slack', name: 'Channel', config: {}, credentials: { webhookUrl: slack.webhookUrl('#scoped') } } }),
    ok: 201,
  },
  { route: 'adminListIntegrationActivity', call: (f, as) => h.call('GET', `/admin/v1/integrations/${f.connectionId}/activity`, { as }), ok: 200 },
  { route: 'adminTestIntegration', call: (f, as) => h.call('POST', `/admin/v1/integrations/${f.connectionId}/test`, { as }), ok: 200 },
  { route: 'adminUpdateIntegration', call: (f, as) => h.call('PATCH', `/admin/v1/integrations/${f.connectionId}`, { as, body: { name: 'Renamed', paused: true } }), ok: 200 },
  { route: 'adminRotateInboundSecret', call: (f, as) => h.call('POST', `/admin/v1/integrations/${f.connectionId}/inbound-secret`, { as }), ok: 200 },
  { route: 'adminRetryIntegration', call: (f, as) => h.call('POST', `/admin/v1/integrations/${f.connectionId}/retry`, { as }), ok: 200 },
  { route: 'adminListIssueLinks', call: (f, as) => h.call('GET', `/admin/v1/issues/${f.issueId}/links`, { as }), ok: 200 },
  { route: 'adminDeleteIntegration', call: (f, as) => h.call('DELETE', `/admin/v1/integrations/${f.connectionId}`, { as }), ok: 204 },
];

/** What the operator reads of the fixture, and every row of the service's schema. */
async function stateOf(f: Fixture) {
  const read = async (path: string) => {
    const res = await h.call('GET', path, { as: OPERATOR });
    expect(res.status).toBe(200);
    return res.body;
  };
  return {
    connections: await read(`/admin/v1/organizations/${f.orgId}/integrations`),
    activity: await read(`/admin/v1/integrations/${f.connectionId}/activity`),
    links: await read(`/admin/v1/issues/${f.issueId}/links`),
    rows: await schemaRows(h.schema),
  };
}

describe('admin integration routes for console members', () => {
  it('covers every integration route members may call (the manifest)', () => {
    expect(CASES.map((c) => c.route).sort()).toEqual(memberRoutes(ADMIN_ENDPOINTS, 'integration'));
  });

  it('answers a member of another organisation exactly as for unknown ids, on every route, and changes and sends nothing', async () => {
    const f = await fixture();
    const before = await stateOf(f);
    const githubCalls = github.requests.length;
    const outsider = memberOf(randomUUID(), 'Owner');
    const answers = await answersOf(CASES, f, outsider);
    expect(answers.map((a) => [a.route, a.status, a.problem?.detail])).toEqual(CASES.map((c) => [c.route, 404, expect.stringMatching(/^No (integration|issue|organization) with id '<id>' was found\.$/)]));
    expect(answers).toEqual(await answersOf(CASES, withFreshIds(f), outsider));
    expect(await stateOf(f)).toEqual(before);
    expect(github.requests.length).toBe(githubCalls);
    expect(slack.messages.filter((m) => m.channel === '#scoped')).toHaveLength(0);
  });

  it("shows a member an issue's links through their organisation's connections only", async () => {
    const f = await fixture();
    const own = await h.call('GET', `/admin/v1/issues/${f.issueId}/links`, { as: memberOf(f.orgId, 'Member') });
    expect(own.status).toBe(200);
    expect(own.body).toEqual([expect.objectContaining({ integrationId: f.connectionId, kind: 'github' })]);
  });

  it('serves a member of the organisation and the operator on every route', async () => {
    const mine = await fixture();
    const operators = await fixture();
    const member = memberOf(mine.orgId, 'Admin');
    const served = CASES.map((c) => [c.route, c.ok]);
    const kept = CASES.filter((c) => c.route !== 'adminDeleteIntegration');
    expect((await answersOf(kept, mine, member)).map((a) => [a.route, a.status])).toEqual(served.slice(0, kept.length));
    // The member's test call reached GitHub and is in the activity, as the operator's would be.
    expect((await activityOf(h, mine.connectionId)).map((a) => `${a.action} ${a.outcome}`)).toContain('test succeeded');
    expect((await answersOf(CASES.slice(kept.length), mine, member)).map((a) => [a.route, a.status])).toEqual(served.slice(kept.length));
    expect((await answersOf(CASES, operators, OPERATOR)).map((a) => [a.route, a.status])).toEqual(served);
    const left = await h.call('GET', `/admin/v1/organizations/${mine.orgId}/integrations`, { as: member });
    expect(left.body.map((c: { name: string }) => c.name)).toEqual(['Channel']);
  });
});
