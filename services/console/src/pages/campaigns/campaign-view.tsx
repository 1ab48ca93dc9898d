/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import { ISSUE_SEVERITIES, ISSUE_STATUSES } from '@preflight/contract';
import type { IssuePage, PublicCampaign, ReadinessReport, Signer, Task, TesterProgress } from '../../gateway-client/api-types.ts';
import type { IssueListFilter } from '../../gateway-client/api.ts';
import { Field, PostForm, ProblemNotice, Select, Submit, options, type FormProblem } from '../components/form.tsx';
import { Badge, PageHeader, Table, Time } from '../components/ui.tsx';
import { campaignMoveLabel, campaignMoves } from '../workflows.ts';
import { ReportSection } from './report-view.tsx';
import { TestersSection, type TesterOutcome } from './testers-view.tsx';

export interface CampaignPageProps {
  campaign: PublicCampaign;
  report: ReadinessReport;
  signers: Signer[];
  issues: IssuePage;
  tasks: Task[];
  testers: TesterProgress[];
  filter: IssueListFilter;
  canManage: boolean;
  csrf: string;
  problem?: FormProblem;
  outcome?: TesterOutcome;
}

export function issuesHref(campaignId: string, filter: IssueListFilter): string {
  const q = new URLSearchParams();
  if (filter.status) q.set('status', filter.status);
  if (filter.severity) q.set('severity', filter.severity);
  if (filter.page && filter.page > 1) q.set('page', String(filter.page));
  const s = q.toString();
  return `/console/campaigns/${campaignId}${s ? `?${s}` : ''}#issues-heading`;
}

/** Launch, pause, resume, close: only the moves the lifecycle allows from here. */
function Lifecycle({ campaign, csrf, problem }: { campaign: PublicCampaign; csrf: string; problem?: FormProblem }) {
  const moves = campaignMoves(campaign.status);
  return (
    <section aria-labelledby="lifecycle-heading">
      <h2 id="lifecycle-heading">Lifecycle</h2>
      <ProblemNotice problem={problem} form="status" />
      {moves.length === 0 ? <p class="muted">A closed campaign is history: it can no longer change.</p> : (
      <PostForm action={`/console/campaigns/${campaign.id}/status`} csrf={csrf} class="inline-form" label="Change the campaign's status">
        <Field form="status" name="reason" label="Reason" hint="Recorded with the change (optional)." problem={problem} />
        <div class="button-row">
          {moves.map((to) => (
            <button type="submit" name="to" value={to} class={to === 'Closed' ? 'button button-danger' : 'button'}>
              {campaignMoveLabel(campaign.status, to)}
            </button>
          ))}
        </div>
      </PostForm>
      )}
    </section>
  );
}

function IssueList({ campaignId, issues, filter }: { campaignId: string; issues: IssuePage; filter: IssueListFilter }) {
  const page = issues.page;
  const items = issues.items ?? [];
  return (
    <section aria-labelledby="issues-heading">
      <div class="section-header">
        <h2 id="issues-heading">Issues</h2>
        <a class="button" href={`/console/campaigns/${campaignId}/issues/new`}>
          File an issue
        </a>
      </div>
      <form method="get" action={`/console/campaigns/${campaignId}`} class="filters" aria-label="Filter issues">
        <Select name="status" label="Status" blank="Any status" options={options(ISSUE_STATUSES)} value={filter.status} />
        <Select name="severity" label="Severity" blank="Any severity" options={options(ISSUE_SEVERITIES)} value={filter.severity} />
        <Submit variant="secondary">Filter</Submit>
      </form>
      <Table caption={`Issues, most severe first (${issues.total} in all)`} head={['#', 'Title', 'Severity', 'Status', 'Type', 'Assignee', 'Filed']} empty="No issues match.">
        {items.map((i) => (
          <tr>
            <td>{i.seqNumber}</td>
            <th scope="row">
              <a href={`/console/issues/${i.id}`}>{i.title ?? `Issue ${i.seqNumber}`}</a>
            </th>
            <td>
              <Badge kind="severity" value={i.severity} />
            </td>
            <td>
              <Badge kind="status" value={i.status} />
            </td>
            <td>{i.type}</td>
            <td>{i.assigneeName ?? <span class="muted">Unassigned</span>}</td>
            <td>
              <Time iso={i.createdAt} />
            </td>
          </tr>
        ))}
      </Table>
      {page > 1 || issues.hasMore ? (
        <nav class="pager" aria-label="Issue pages">
          {page > 1 ? <a href={issuesHref(campaignId, { ...filter, page: page - 1 })}>Previous page</a> : null}
          <span>Page {page}</span>
          {issues.hasMore ? <a href={issuesHref(campaignId, { ...filter, page: page + 1 })}>Next page</a> : null}
        </nav>
      ) : null}
    </section>
  );
}

/** /console/campaigns/:id: the campaign's lifecycle, issues, readiness report and testers. */
export function CampaignPage(props: CampaignPageProps) {
  const { campaign, canManage, csrf, problem } = props;
  return (
    <>
      <p class="breadcrumbs">
        <a href="/console/campaigns">Campaigns</a>
      </p>
      <PageHeader title={campaign.name ?? 'Campaign'}>
        <Badge kind="campaign" value={campaign.status} />
      </PageHeader>
      <p class="muted">
        Site {campaign.siteName ?? campaign.siteId}, created <Time iso={campaign.createdAt} />
      </p>
      {canManage ? <Lifecycle campaign={campaign} csrf={csrf} problem={problem} /> : null}
      <IssueList campaignId={campaign.id} issues={props.issues} filter={props.filter} />
      <ReportSection campaign={campaign} report={props.report} signers={props.signers} canManage={canManage} csrf={csrf} problem={problem} />
      <TestersSection campaignId={campaign.id} tasks={props.tasks} testers={props.testers} canManage={canManage} csrf={csrf} problem={problem} outcome={props.outcome} />
    </>
  );
}
