/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Request, Response } from 'express';
import { ISSUE_SEVERITIES, ISSUE_STATUSES, type IssueSeverity, type IssueStatus } from '@preflight/contract';
import type { IssueListFilter } from '../../gateway-client/api.ts';
import type { FormProblem } from '../components/form.tsx';
import { show, type Member } from '../page.tsx';
import { CampaignPage } from './campaign-view.tsx';

const ISSUES_PER_PAGE = 25;

/** The issue filter of the campaign page's query string; anything unknown is ignored. */
export function issueFilter(query: Request['query']): IssueListFilter {
  const one = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const status = one(query.status);
  const severity = one(query.severity);
  const page = Number(one(query.page));
  return {
    status: (ISSUE_STATUSES as readonly string[]).includes(status ?? '') ? (status as IssueStatus) : undefined,
    severity: (ISSUE_SEVERITIES as readonly string[]).includes(severity ?? '') ? (severity as IssueSeverity) : undefined,
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

export interface CampaignPageState {
  status?: number;
  problem?: FormProblem;
  outcome?: Parameters<typeof CampaignPage>[0]['outcome'];
  filter?: IssueListFilter;
}

/** Renders /console/campaigns/:id, also after a form on it was refused or did something to show. */
export async function showCampaign(res: Response, m: Member, id: string, state: CampaignPageState = {}) {
  const filter = state.filter ?? { page: 1 };
  const [campaign, report, signers, issues, tasks, testers] = await Promise.all([
    m.api.campaigns.get(id),
    m.api.campaigns.report(id),
    m.api.campaigns.signers(id),
    m.api.issues.list(id, { ...filter, pageSize: ISSUES_PER_PAGE }),
    m.api.campaigns.listTasks(id),
    m.api.campaigns.listTesters(id),
  ]);
  show(
    res,
    m,
    { title: campaign.name ?? 'Campaign', path: '/console/campaigns', status: state.status },
    <CampaignPage
      campaign={campaign}
      report={report}
      signers={signers}
      issues={issues}
      tasks={tasks}
      testers={testers}
      filter={filter}
      canManage={m.canManage}
      csrf={m.session.csrf}
      problem={state.problem}
      outcome={state.outcome}
    />,
  );
}
