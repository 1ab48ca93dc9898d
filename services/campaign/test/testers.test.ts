import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@preflight/db';
import { toPublicEvents } from '@preflight/events';
import { eventually } from '@preflight/testing';
import { READINESS_CONSUMER } from '../src/consumers/readiness.ts';
import { admin, createCampaign, createSite, json, MISSING_ID, newOrgId, problem, startTestService, type TestService } from './harness.ts';
import { campaignEvents, issueCreated, publishIssueEvent, statusChanged } from './events.ts';

let svc: TestService;
let orgId: string;
let siteId: string;

beforeAll(async () => {
  svc = await startTestService('campaign_testers');
  orgId = newOrgId();
  siteId = (await createSite(svc, orgId)).id;
});
afterAll(() => svc.stop());

const createTask = async (campaignId: string, title: string, required: boolean) =>
  json<{ id: string; title: string; required: boolean }>(await svc.post(`/admin/v1/campaigns/${campaignId}/tasks`, { title, required }, admin), 201);
const createTester = async (campaignId: string, body: Record<string, unknown>) =>
  json<{ id: string; name: string; email: string; preview: boolean; status: string }>(await svc.post(`/admin/v1/campaigns/${campaignId}/testers`, body, admin), 201);
const complete = (testerId: string, taskId: string, body: Record<string, unknown> = {}) =>
  svc.post(`/admin/v1/campaign-testers/${testerId}/tasks/${taskId}/complete`, body, admin);

/** The public data of every TesterCompleted about the campaign in the stream, in order. */
async function completedEvents(campaignId: string) {
  const events = await campaignEvents(svc, campaignId);
  return events.filter((e) => e.event.kind === 'TesterCompleted').map((e) => toPublicEvents(e.event)[0]!);
}
const completedN = (campaignId: string, n: number) =>
  eventually(async () => {
    const done = await completedEvents(campaignId);
    expect(done).toHaveLength(n);
    return done;
  });

/** Waits until the readiness consumer has committed these events (the issue projection is current). */
async function processed(msgIDs: string[]): Promise<void> {
  await eventually(async () => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from inbox where consumer = ${READINESS_CONSUMER} and event_id = any(${msgIDs})`.execute(svc.db);
    expect(rows[0]!.n).toBe(msgIDs.length);
  });
}

describe('testers', () => {
  it('emits TesterCompleted once, when the last required task is done, with the verdict and the issues reported', async () => {
    const campaign = await createCampaign(svc, siteId, 'Beta test');
    const id = campaign.id as string;
    const checkout = await createTask(id, 'Buy something', true);
    expect(checkout).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), title: 'Buy something', required: true });
    const signup = await createTask(id, 'Sign up', true);
    const survey = await createTask(id, 'Fill in the survey', false);
    const sam = await createTester(id, { name: 'Sam Tester', email: 'Sam@Example.com' });
    expect(sam).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Sam Tester', email: 'Sam@Example.com', preview: false, status: 'Invited' });

    // Issues filed with Sam's e-mail (any case) count; another tester's and none do not.
    const mine1 = issueCreated({ orgId, campaignId: id, severity: 'Low' });
    const mine2 = issueCreated({ orgId, campaignId: id, severity: 'Medium' });
    const published = await Promise.all([
      publishIssueEvent(svc, 'IssueCreated', { ...mine1, testerEmail: 'sam@example.com' }),
      publishIssueEvent(svc, 'IssueCreated', { ...mine2, testerEmail: 'SAM@example.com' }),
      publishIssueEvent(svc, 'IssueCreated', { ...issueCreated({ orgId, campaignId: id, severity: 'Low' }), testerEmail: 'kim@example.com' }),
      publishIssueEvent(svc, 'IssueCreated', issueCreated({ orgId, campaignId: id, severity: 'Low' })),
      // A closed issue still counts as reported; the status change carries no e-mail and keeps it.
      publishIssueEvent(svc, 'IssueStatusChanged', statusChanged({ orgId, campaignId: id, issueId: mine2.issueId, from: 'New', to: 'WontFix', revision: 2 })),
    ]);
    await processed(published.map((p) => p.msgID));

    // The optional task and one required one: a required task is left, nothing fires.
    const afterSurvey = await json(await complete(sam.id, survey.id, { verdict: 'Meh' }), 200);
    expect(afterSurvey).toMatchObject({ id: sam.id, status: 'Started', verdict: 'Meh', completedAt: null });
    const afterCheckout = await json(await complete(sam.id, checkout.id, { verdict: 'Pass' }), 200);
    expect(afterCheckout.completedTasks.map((t: { id: string }) => t.id)).toEqual([survey.id, checkout.id]);
    expect(afterCheckout.status).toBe('Started');

    // The last required one, without a verdict: the tester's latest one (Pass) goes with the event.
    const done = await json(await complete(sam.id, signup.id), 200);
    expect(done).toEqual({
      id: sam.id,
      name: 'Sam Tester',
      email: 'Sam@Example.com',
      preview: false,
      status: 'Completed',
      verdict: 'Pass',
      completedAt: expect.any(String),
      completedTasks: [
        { id: survey.id, title: 'Fill in the survey', required: false, verdict: 'Meh', completedAt: expect.any(String) },
        { id: checkout.id, title: 'Buy something', required: true, verdict: 'Pass', completedAt: expect.any(String) },
        { id: signup.id, title: 'Sign up', required: true, verdict: null, completedAt: expect.any(String) },
      ],
    });
    const [event] = await completedN(id, 1);
    expect(event!.eventType).toBe('TesterCompleted');
    expect(event!.data).toEqual({ campaignId: id, campaignName: 'Beta test', campaignTesterId: sam.id, testerName: 'Sam Tester', verdict: 'Pass', issuesReported: 2 });

    // Once: completing again (even with a new verdict) does not fire again, and stays Completed.
    expect(await json(await complete(sam.id, signup.id, { verdict: 'Fail' }), 200)).toMatchObject({ status: 'Completed', verdict: 'Fail' });

    // Another tester: the required tasks with the optional one left is enough; the verdict of the completing call wins.
    const kim = await createTester(id, { name: 'Kim', email: 'kim@example.com' });
    await json(await complete(kim.id, checkout.id, { verdict: 'Fail' }), 200);
    expect(await json(await complete(kim.id, signup.id, { verdict: 'Pass with notes' }), 200)).toMatchObject({ status: 'Completed' });
    const both = await completedN(id, 2);
    expect(both[1]!.data).toEqual({ campaignId: id, campaignName: 'Beta test', campaignTesterId: kim.id, testerName: 'Kim', verdict: 'Pass with notes', issuesReported: 1 });
  });

  it('never emits TesterCompleted for a preview tester, nor for a tester with a required task left', async () => {
    const id = (await createCampaign(svc, siteId, 'Preview')).id as string;
    const required = await createTask(id, 'Log in', true);
    const optional = await createTask(id, 'Browse', false);
    const preview = await createTester(id, { name: 'Pat Preview', email: 'pat@example.com', preview: true });
    expect(preview).toMatchObject({ preview: true, status: 'Invited' });
    expect(await json(await complete(preview.id, required.id, { verdict: 'Pass' }), 200)).toMatchObject({ status: 'Completed', preview: true });
    await json(await complete(preview.id, optional.id), 200);
    const partial = await createTester(id, { name: 'Olly Optional', email: 'olly@example.com', preview: false });
    expect(await json(await complete(partial.id, optional.id, { verdict: 'Pass' }), 200)).toMatchObject({ status: 'Started' });

    // A later, real completion is the only TesterCompleted: nothing came before it.
    const real = await createTester(id, { name: 'Rae Real', email: 'rae@example.com' });
    await json(await complete(real.id, required.id), 200);
    const events = await completedN(id, 1);
    expect(events[0]!.data).toMatchObject({ campaignTesterId: real.id, testerName: 'Rae Real', verdict: null, issuesReported: 0 });
  });

  it("lists a campaign's tasks and testers, oldest first, each tester with the tasks it has completed", async () => {
    const id = (await createCampaign(svc, siteId, 'Lists')).id as string;
    expect(await json(await svc.get(`/admin/v1/campaigns/${id}/tasks`, admin), 200)).toEqual([]);
    expect(await json(await svc.get(`/admin/v1/campaigns/${id}/testers`, admin), 200)).toEqual([]);
    const login = await createTask(id, 'Log in', true);
    const browse = await createTask(id, 'Browse', false);
    const ada = await createTester(id, { name: 'Ada', email: 'ada@example.com' });
    const bo = await createTester(id, { name: 'Bo', email: 'bo@example.com', preview: true });
    const cy = await createTester(id, { name: 'Cy', email: 'cy@example.com' });
    await json(await complete(ada.id, browse.id, { verdict: 'Nice' }), 200);
    const adaDone = await json(await complete(ada.id, login.id), 200);
    const boStarted = await json(await complete(bo.id, browse.id), 200);
    // Another campaign's task and tester stay out of this one's lists.
    const other = (await createCampaign(svc, siteId, 'Other lists')).id as string;
    await createTask(other, 'Elsewhere', true);
    await createTester(other, { name: 'Dee', email: 'dee@example.com' });

    expect(await json(await svc.get(`/admin/v1/campaigns/${id}/tasks`, admin), 200)).toEqual([login, browse]);
    // The same shape as a completion's answer: what the console shows is what completing answers.
    expect(await json(await svc.get(`/admin/v1/campaigns/${id}/testers`, admin), 200)).toEqual([
      adaDone,
      boStarted,
      { ...cy, verdict: null, completedAt: null, completedTasks: [] },
    ]);
    expect(adaDone).toMatchObject({ status: 'Completed', completedTasks: [{ id: browse.id, verdict: 'Nice' }, { id: login.id, verdict: null }] });
  });

  it('validates testers, tasks and completions', async () => {
    const id = (await createCampaign(svc, siteId, 'Validation')).id as string;
    const other = (await createCampaign(svc, siteId, 'Other')).id as string;
    const foreignTask = await createTask(other, 'Elsewhere', true);
    const tester = await createTester(id, { name: 'Val', email: 'val@example.com' });

    expect(Object.keys((await problem(await svc.post(`/admin/v1/campaigns/${id}/tasks`, { title: ' ' }, admin), 422)).errors).sort()).toEqual(['required', 'title']);
    expect(Object.keys((await problem(await svc.post(`/admin/v1/campaigns/${id}/testers`, { name: 'X', email: 'x', preview: 'yes' }, admin), 422)).errors).sort()).toEqual(['email', 'preview']);
    await problem(await svc.post(`/admin/v1/campaigns/${MISSING_ID}/tasks`, { title: 'T', required: true }, admin), 404);
    await problem(await svc.post(`/admin/v1/campaigns/${MISSING_ID}/testers`, { name: 'X', email: 'x@example.com' }, admin), 404);
    await problem(await svc.get(`/admin/v1/campaigns/${MISSING_ID}/tasks`, admin), 404);
    await problem(await svc.get(`/admin/v1/campaigns/${MISSING_ID}/testers`, admin), 404);
    await problem(await svc.get('/admin/v1/campaigns/not-a-uuid/testers', admin), 404);
    await problem(await complete(tester.id, foreignTask.id), 404);
    await problem(await complete(randomUUID(), foreignTask.id), 404);
    await problem(await complete(tester.id, 'not-a-uuid'), 404);
    expect(Object.keys((await problem(await complete(tester.id, foreignTask.id, { verdict: 3 }), 422)).errors)).toEqual(['verdict']);
    // The body is optional: none at all is `{}`.
    const own = await createTask(id, 'Own', false);
    expect(await json(await svc.post(`/admin/v1/campaign-testers/${tester.id}/tasks/${own.id}/complete`, undefined, admin), 200)).toMatchObject({ id: tester.id, verdict: null });
  });
});
