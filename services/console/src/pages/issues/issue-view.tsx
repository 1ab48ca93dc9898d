/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { AdminIssue, IssueLink, PublicIssueSummary } from '../../gateway-client/api-types.ts';
import { Field, PostForm, ProblemNotice, Select, Submit, TextArea, type FormProblem } from '../components/form.tsx';
import { Badge, PageHeader, Table, Time } from '../components/ui.tsx';
import { issueMoves } from '../workflows.ts';

export interface IssuePageProps {
  issue: AdminIssue;
  links: IssueLink[];
  /** Other issues of the campaign: the originals a Duplicate may name. */
  siblings: PublicIssueSummary[];
  csrf: string;
  problem?: FormProblem;
}

const DETAILS: Array<[keyof AdminIssue, string]> = [
  ['description', 'Description'],
  ['stepsToReproduce', 'Steps to reproduce'],
  ['expectedBehavior', 'Expected behaviour'],
  ['actualBehavior', 'Actual behaviour'],
];

const FACTS: Array<[keyof AdminIssue, string]> = [
  ['type', 'Type'],
  ['reporter', 'Reporter'],
  ['testerEmail', "Tester's e-mail"],
  ['pageTitle', 'Page title'],
  ['browserName', 'Browser'],
  ['browserVersion', 'Browser version'],
  ['operatingSystem', 'Operating system'],
  ['deviceType', 'Device type'],
  ['screenResolution', 'Screen resolution'],
];

function ExternalLink({ href }: { href: string | null }) {
  if (!href) return <span class="muted">—</span>;
  // Shown as a link only when it is http(s): a stored URL is the reporter's input.
  return /^https?:\/\//i.test(href) ? (
    <a href={href} rel="noopener noreferrer nofollow">
      {href}
    </a>
  ) : (
    <span>{href}</span>
  );
}

function Workflow({ issue, siblings, csrf, problem }: { issue: AdminIssue; siblings: PublicIssueSummary[]; csrf: string; problem?: FormProblem }) {
  const moves = issueMoves(issue.status);
  const plain = moves.filter((m) => m !== 'Duplicate');
  const originals = siblings.filter((s) => s.id !== issue.id);
  const action = `/console/issues/${issue.id}/status`;
  return (
    <section aria-labelledby="workflow-heading">
      <h2 id="workflow-heading">Move it on</h2>
      <ProblemNotice problem={problem} form="status" />
      {plain.length > 0 ? (
        <PostForm action={action} csrf={csrf} label="Change the status">
          <TextArea form="status" name="reason" label="Reason" rows={2} hint="Recorded in the history (optional)." problem={problem} />
          <div class="button-row">
            {plain.map((to) => (
              <button type="submit" name="to" value={to} class="button">
                {to}
              </button>
            ))}
          </div>
        </PostForm>
      ) : null}
      {moves.includes('Duplicate') ? (
        <PostForm action={action} csrf={csrf} label="Mark as duplicate" class="inline-form">
          <input type="hidden" name="to" value="Duplicate" />
          {originals.length > 0 ? (
            <>
              <Select
                form="status"
                name="duplicateOfId"
                label="Duplicate of"
                required
                problem={problem}
                options={originals.map((s) => ({ value: s.id, label: `#${s.seqNumber} ${s.title ?? ''}` }))}
              />
              <Submit variant="secondary">Mark as duplicate</Submit>
            </>
          ) : (
            <p class="muted">No other issue of this campaign to name as the original.</p>
          )}
        </PostForm>
      ) : null}
    </section>
  );
}

function Assignee({ issue, csrf, problem }: { issue: AdminIssue; csrf: string; problem?: FormProblem }) {
  const action = `/console/issues/${issue.id}/assignee`;
  return (
    <section aria-labelledby="assignee-heading">
      <h2 id="assignee-heading">Assignee</h2>
      <ProblemNotice problem={problem} form="assignee" />
      <p>{issue.assigneeName ? <>Assigned to {issue.assigneeName}.</> : 'Nobody is assigned.'}</p>
      <PostForm action={action} csrf={csrf} class="inline-form" label="Assign">
        <Field form="assignee" name="assigneeName" label="Assign to" required value={issue.assigneeName} problem={problem} />
        <Submit variant="secondary">Assign</Submit>
      </PostForm>
      {issue.assigneeName ? (
        <PostForm action={action} csrf={csrf} label="Unassign">
          <input type="hidden" name="unassign" value="1" />
          <Submit variant="secondary">Unassign</Submit>
        </PostForm>
      ) : null}
    </section>
  );
}

/** /console/issues/:id: every field, the history, the workflow, the assignee and tracker links. */
export function IssuePage({ issue, links, siblings, csrf, problem }: IssuePageProps) {
  return (
    <>
      <p class="breadcrumbs">
        <a href="/console/campaigns">Campaigns</a> › <a href={`/console/campaigns/${issue.campaignId}`}>{issue.campaignName ?? 'Campaign'}</a>
      </p>
      <PageHeader title={`#${issue.seqNumber} ${issue.title ?? ''}`}>
        <Badge kind="status" value={issue.status} />
        <Badge kind="severity" value={issue.severity} />
      </PageHeader>
      <p class="muted">
        Filed <Time iso={issue.createdAt} />, updated <Time iso={issue.updatedAt} />
        {issue.duplicateOfId ? (
          <>
            {' '}
            — duplicate of <a href={`/console/issues/${issue.duplicateOfId}`}>#{issue.duplicateOfSeqNumber}</a>
          </>
        ) : null}
      </p>
      <div class="grid-2">
        <div>
          {DETAILS.filter(([k]) => issue[k]).map(([k, label]) => (
            <section class="text-block">
              <h2>{label}</h2>
              <p class="prewrap">{String(issue[k])}</p>
            </section>
          ))}
          <dl class="facts">
            {FACTS.map(([k, label]) => (
              <div>
                <dt>{label}</dt>
                <dd>{issue[k] ? String(issue[k]) : <span class="muted">—</span>}</dd>
              </div>
            ))}
            <div>
              <dt>Page URL</dt>
              <dd>
                <ExternalLink href={issue.pageUrl} />
              </dd>
            </div>
            <div>
              <dt>Screenshot</dt>
              <dd>
                <ExternalLink href={issue.screenshotUrl} />
              </dd>
            </div>
          </dl>
        </div>
        <div>
          <Workflow issue={issue} siblings={siblings} csrf={csrf} problem={problem} />
          <Assignee issue={issue} csrf={csrf} problem={problem} />
        </div>
      </div>
      <Table caption="History" head={['From', 'To', 'Reason', 'When']} empty="No changes yet.">
        {(issue.history ?? []).map((h) => (
          <tr>
            <td>{h.from ?? '—'}</td>
            <td>{h.to}</td>
            <td>{h.reason ?? ''}</td>
            <td>
              <Time iso={h.occurredAt} />
            </td>
          </tr>
        ))}
      </Table>
      <Table caption="Tracker links" head={['Tracker', 'Key', 'Synced']} empty="Not linked to any tracker.">
        {links.map((l) => (
          <tr>
            <td>{l.kind}</td>
            <td>{l.url && /^https?:\/\//i.test(l.url) ? <a href={l.url} rel="noopener noreferrer">{l.externalKey}</a> : l.externalKey}</td>
            <td>
              <Time iso={l.syncedAt} />
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}
