/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Response } from 'express';
import type { IssueStatus } from '@preflight/contract';
import { pathId } from '@preflight/http';
import type { IssueFields } from '../../gateway-client/api-types.ts';
import type { FormProblem, FormValues } from '../components/form.tsx';
import { requireSession, type PageRegistration } from '../context.ts';
import { backTo, Form, memberOf, show, submit, type Member } from '../page.tsx';
import { IssuePage } from './issue-view.tsx';
import { ISSUE_TEXT_FIELDS, NewIssuePage } from './new-view.tsx';

/** The originals a Duplicate may name: the campaign's issues, as many as one list call gives. */
const SIBLINGS = 200;

async function showNew(res: Response, m: Member, campaignId: string, refused?: { problem: FormProblem; values: FormValues; status: number }) {
  const campaign = await m.api.campaigns.get(campaignId);
  show(
    res,
    m,
    { title: 'File an issue', path: '/console/campaigns', status: refused?.status },
    <NewIssuePage campaign={campaign} csrf={m.session.csrf} problem={refused?.problem} values={refused?.values} />,
  );
}

async function showIssue(res: Response, m: Member, id: string, refused?: { problem: FormProblem; status: number }) {
  const issue = await m.api.issues.get(id);
  const [links, siblings] = await Promise.all([m.api.issues.links(id), m.api.issues.list(issue.campaignId, { pageSize: SIBLINGS })]);
  show(
    res,
    m,
    { title: `Issue ${issue.seqNumber}`, path: '/console/campaigns', status: refused?.status },
    <IssuePage issue={issue} links={links} siblings={siblings.items ?? []} csrf={m.session.csrf} problem={refused?.problem} />,
  );
}

/** The form's fields as the admin create takes them: required ones as typed (the API names what is wrong), empty optional ones null. */
function issueFields(form: Form): IssueFields {
  const fields: Record<string, string | null> = {};
  for (const name of ISSUE_TEXT_FIELDS) fields[name] = name === 'title' ? form.text(name) : form.optional(name);
  return { ...fields, title: form.text('title'), severity: form.text('severity'), type: form.text('type') } as IssueFields;
}

/** Issues: filing one, its page, moving it through the workflow, assigning it. */
export const issuePages: PageRegistration = (router, deps) => {
  router.get('/campaigns/:id/issues/new', requireSession, async (req, res) => {
    await showNew(res, memberOf(deps.context(res)), pathId(req.params.id, 'campaign'));
  });

  router.post('/campaigns/:id/issues', requireSession, async (req, res) => {
    const m = memberOf(deps.context(res));
    const campaignId = pathId(req.params.id, 'campaign');
    const form = Form.of(req);
    await submit(
      () => m.api.issues.create(campaignId, issueFields(form)),
      (created) => backTo(res, `/console/issues/${created.id}`),
      (problem, status) => showNew(res, m, campaignId, { problem, status, values: form.values() }),
    );
  });

  router.get('/issues/:id', requireSession, async (req, res) => {
    await showIssue(res, memberOf(deps.context(res)), pathId(req.params.id, 'issue'));
  });

  router.post('/issues/:id/status', requireSession, async (req, res) => {
    const m = memberOf(deps.context(res));
    const id = pathId(req.params.id, 'issue');
    const form = Form.of(req);
    const to = form.text('to') as IssueStatus;
    await submit(
      () => m.api.issues.changeStatus(id, { to, reason: form.optional('reason'), ...(to === 'Duplicate' ? { duplicateOfId: form.optional('duplicateOfId') } : {}) }),
      () => backTo(res, `/console/issues/${id}`),
      (problem, status) => showIssue(res, m, id, { problem, status }),
      'status',
    );
  });

  router.post('/issues/:id/assignee', requireSession, async (req, res) => {
    const m = memberOf(deps.context(res));
    const id = pathId(req.params.id, 'issue');
    const form = Form.of(req);
    // Unassigning sends null; an empty name is sent as typed so the API's message explains it.
    const name = form.text('unassign') ? null : form.text('assigneeName');
    await submit(
      () => m.api.issues.setAssignee(id, name),
      () => backTo(res, `/console/issues/${id}`),
      (problem, status) => showIssue(res, m, id, { problem, status }),
      'assignee',
    );
  });
};
