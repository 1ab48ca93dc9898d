import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUE_STATUSES, type IssueStatus } from '@preflight/contract';
import { asAdmin, asKey, expectProblem, startHarness, type Harness, type StubCampaign } from './harness.ts';

/** The workflow as specified, written out independently of src/domain/issue-workflow.ts. */
const ALLOWED: Record<IssueStatus, IssueStatus[]> = {
  New: ['Acknowledged', 'InProgress', 'Fixed', 'Closed', 'WontFix', 'Duplicate'],
  Acknowledged: ['InProgress', 'Fixed', 'Closed', 'WontFix', 'Duplicate'],
  InProgress: ['Acknowledged', 'Fixed', 'Closed', 'WontFix', 'Duplicate'],
  Fixed: ['RetestRequested', 'InProgress', 'Closed'],
  RetestRequested: ['RetestFixed', 'RetestFailed'],
  RetestFixed: ['Closed', 'InProgress'],
  RetestFailed: ['InProgress', 'Fixed', 'Closed', 'WontFix'],
  Closed: ['Acknowledged'],
  WontFix: ['Acknowledged'],
  Duplicate: ['Acknowledged'],
};

/** Shortest walk from New to `target` over the allowed transitions. */
function pathTo(target: IssueStatus): IssueStatus[] {
  const previous = new Map<IssueStatus, IssueStatus | null>([['New', null]]);
  const queue: IssueStatus[] = ['New'];
  while (queue.length) {
    const at = queue.shift()!;
    for (const next of ALLOWED[at]) {
      if (!previous.has(next)) {
        previous.set(next, at);
        queue.push(next);
      }
    }
  }
  const steps: IssueStatus[] = [];
  for (let s: IssueStatus | null | undefined = target; s && s !== 'New'; s = previous.get(s)) steps.unshift(s);
  return steps;
}

let h: Harness;
const org = randomUUID();
let campaign: StubCampaign;
let original: { id: string; seqNumber: number };

beforeAll(async () => {
  h = await startHarness();
  campaign = h.stub.add(org);
  original = (await fileIssue()).body;
});
afterAll(() => h?.close());

function fileIssue(campaignId = campaign.id) {
  return h.call('POST', `/admin/v1/campaigns/${campaignId}/issues`, { as: asAdmin, body: { title: 'Broken link', severity: 'High', type: 'Bug' } });
}
const move = (issueId: string, body: Record<string, unknown>) => h.call('POST', `/admin/v1/issues/${issueId}/status`, { as: asAdmin, body });
const duplicateOf = (to: IssueStatus) => (to === 'Duplicate' ? { duplicateOfId: original.id } : {});

async function issueIn(status: IssueStatus): Promise<string> {
  const { id } = (await fileIssue()).body;
  for (const to of pathTo(status)) expect((await move(id, { to, ...duplicateOf(to) })).status).toBe(200);
  return id;
}

const allowedPairs = ISSUE_STATUSES.flatMap((from) => ALLOWED[from].map((to) => [from, to] as const));

describe('allowed transitions', () => {
  it.each(allowedPairs)('%s → %s answers 200 with the issue and records it in history', async (from, to) => {
    const id = await issueIn(from);
    const res = await move(id, { to, reason: `to ${to}`, ...duplicateOf(to) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: to, reporter: 'Dashboard' });
    expect(res.body.history.at(-1)).toEqual({ from, to, reason: `to ${to}`, occurredAt: res.body.updatedAt });
    expect(res.body.history).toHaveLength(pathTo(from).length + 2);
  });
});

describe('refused transitions', () => {
  it.each(ISSUE_STATUSES)('from %s, every other target (and staying put) is 409 with the allowed targets', async (from) => {
    const id = await issueIn(from);
    for (const to of ISSUE_STATUSES.filter((s) => !ALLOWED[from].includes(s))) {
      const problem = expectProblem(await move(id, { to, ...duplicateOf(to) }), 409);
      expect(problem).toMatchObject({ title: 'Conflict.', currentStatus: from, allowedTransitions: ALLOWED[from] });
      expect(problem.detail).toContain(from);
      for (const target of ALLOWED[from]) expect(problem.detail).toContain(target);
    }
    const after = await h.call('GET', `/admin/v1/issues/${id}`, { as: asAdmin });
    expect(after.body.status).toBe(from);
    expect(after.body.history).toHaveLength(pathTo(from).length + 1);
  });

  it.each([
    ['no target', {}, 'to'],
    ['an unknown status', { to: 'Done' }, 'to'],
    ['an unknown property', { to: 'Fixed', note: 'x' }, 'note'],
    ['a reason that is not text', { to: 'Fixed', reason: 3 }, 'reason'],
  ])('refuses %s with 422', async (_label, body, field) => {
    const problem = expectProblem(await move(original.id, body), 422);
    expect(Object.keys(problem.errors)).toEqual([field]);
  });
});

describe('Duplicate', () => {
  it('needs duplicateOfId naming another issue of the same campaign', async () => {
    const id = await issueIn('New');
    const elsewhere = (await fileIssue(h.stub.add(org).id)).body.id;
    for (const duplicateOfId of [undefined, id, elsewhere, randomUUID(), 'not-a-uuid']) {
      const problem = expectProblem(await move(id, { to: 'Duplicate', duplicateOfId }), 422);
      expect(Object.keys(problem.errors)).toEqual(['duplicateOfId']);
    }
    expect((await h.call('GET', `/admin/v1/issues/${id}`, { as: asAdmin })).body.status).toBe('New');
  });

  it('refuses duplicateOfId on any other target', async () => {
    const problem = expectProblem(await move(await issueIn('New'), { to: 'Acknowledged', duplicateOfId: original.id }), 422);
    expect(Object.keys(problem.errors)).toEqual(['duplicateOfId']);
  });

  it('points at the original, and forgets it on reopening', async () => {
    const id = await issueIn('InProgress');
    const marked = await move(id, { to: 'Duplicate', duplicateOfId: original.id.toUpperCase(), reason: 'Same as the first' });
    expect(marked.body).toMatchObject({ status: 'Duplicate', duplicateOfId: original.id, duplicateOfSeqNumber: original.seqNumber });

    const publicView = await h.call('GET', `/api/v1/issues/${id}`, { as: asKey(org) });
    expect(publicView.body).toMatchObject({ duplicateOfId: original.id, duplicateOfSeqNumber: original.seqNumber });

    const reopened = await move(id, { to: 'Acknowledged' });
    expect(reopened.body).toMatchObject({ status: 'Acknowledged', duplicateOfId: null, duplicateOfSeqNumber: null });
    expect(reopened.body.history.map((e: { from: string | null; to: string; reason: string | null }) => [e.from, e.to, e.reason])).toEqual([
      [null, 'New', null],
      ['New', 'InProgress', null],
      ['InProgress', 'Duplicate', 'Same as the first'],
      ['Duplicate', 'Acknowledged', null],
    ]);
  });
});

describe('assignee', () => {
  const assign = (id: string, body: unknown) => h.call('POST', `/admin/v1/issues/${id}/assignee`, { as: asAdmin, body });

  it('assigns, reassigns and unassigns', async () => {
    const id = await issueIn('New');
    const assigned = await assign(id, { assigneeName: '  Dana Reyes ' });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toMatchObject({ id, assigneeName: 'Dana Reyes', status: 'New', reporter: 'Dashboard' });
    expect(assigned.body.history).toHaveLength(1);
    expect(Date.parse(assigned.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(assigned.body.createdAt));

    const list = await h.call('GET', `/api/v1/campaigns/${campaign.id}/issues?pageSize=200`, { as: asKey(org) });
    expect(list.body.items.find((i: { id: string }) => i.id === id).assigneeName).toBe('Dana Reyes');

    expect((await assign(id, { assigneeName: 'Lee' })).body.assigneeName).toBe('Lee');
    expect((await assign(id, { assigneeName: null })).body.assigneeName).toBeNull();
  });

  it.each([
    ['no assigneeName', {}],
    ['an empty name', { assigneeName: '   ' }],
    ['too long a name', { assigneeName: 'x'.repeat(201) }],
    ['a number', { assigneeName: 7 }],
  ])('refuses %s with 422', async (_label, body) => {
    const problem = expectProblem(await assign(original.id, body), 422);
    expect(Object.keys(problem.errors)).toEqual(['assigneeName']);
  });
});
