/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Integration, IntegrationActivity, IntegrationTestResult } from '../../gateway-client/api-types.ts';
import { Confirm, PostForm, ProblemNotice, Submit, type FormProblem } from '../components/form.tsx';
import { Badge, Notice, PageHeader, Table, Time } from '../components/ui.tsx';
import { configText, kindSpec } from './integration-kinds.ts';
import { StatusBadge } from './integrations-view.tsx';

export interface IntegrationPageProps {
  integration: Integration;
  activity: IntegrationActivity[];
  csrf: string;
  tested?: IntegrationTestResult;
  problem?: FormProblem;
}

/** /console/settings/integrations/:id: one connection, its test, pause, removal and activity. */
export function IntegrationPage({ integration: i, activity, csrf, tested, problem }: IntegrationPageProps) {
  const base = `/console/settings/integrations/${i.id}`;
  return (
    <>
      <p class="breadcrumbs">
        <a href="/console/settings/integrations">Integrations</a>
      </p>
      <PageHeader title={i.name}>
        <StatusBadge integration={i} />
      </PageHeader>
      <ProblemNotice problem={problem} />
      {tested ? (
        <Notice kind={tested.ok ? 'success' : 'error'}>
          Test {tested.ok ? 'succeeded' : 'failed'}
          {tested.statusCode !== null ? ` (HTTP ${tested.statusCode})` : ''}: {tested.detail}
        </Notice>
      ) : null}
      <dl class="facts">
        <div>
          <dt>Kind</dt>
          <dd>{kindSpec(i.kind)?.label ?? i.kind}</dd>
        </div>
        {Object.entries(i.config).map(([k, v]) => (
          <div>
            <dt>{k}</dt>
            <dd class="break">{configText(v)}</dd>
          </div>
        ))}
        <div>
          <dt>Events</dt>
          <dd>{i.events.join(', ')}</dd>
        </div>
        <div>
          <dt>Campaigns</dt>
          <dd>{i.campaignIds === null ? 'Every campaign' : `${i.campaignIds.length} selected`}</dd>
        </div>
        <div>
          <dt>Lowest severity</dt>
          <dd>{i.minSeverity ?? 'Every severity'}</dd>
        </div>
        <div>
          <dt>Last success</dt>
          <dd>
            <Time iso={i.lastSuccessAt} empty="Never" />
          </dd>
        </div>
        {i.lastError ? (
          <div>
            <dt>Last error</dt>
            <dd class="break">{i.lastError}</dd>
          </div>
        ) : null}
        {i.inbound ? (
          <div>
            <dt>Tracker webhook URL</dt>
            <dd>
              <code class="break">{i.inbound.url}</code>
            </dd>
          </div>
        ) : null}
      </dl>
      <div class="button-row">
        <PostForm action={`${base}/test`} csrf={csrf} label="Test the connection">
          <Submit>Test connection</Submit>
        </PostForm>
        <PostForm action={`${base}/${i.paused ? 'resume' : 'pause'}`} csrf={csrf} label={i.paused ? 'Resume' : 'Pause'}>
          <Submit variant="secondary">{i.paused ? 'Resume' : 'Pause'}</Submit>
        </PostForm>
        <Confirm summary="Delete…" question={`Delete “${i.name}”? Nothing more is sent for it.`} action={`${base}/delete`} csrf={csrf} button="Delete connection" />
      </div>
      <Table caption="Activity, newest first" head={['When', 'Direction', 'Action', 'Outcome', 'Status', 'Issue', 'Detail']} empty="No activity yet.">
        {activity.map((a) => (
          <tr>
            <td>
              <Time iso={a.at} />
            </td>
            <td>{a.direction === 'in' ? 'Inbound' : 'Outbound'}</td>
            <td>{a.action}</td>
            <td>
              <Badge kind="outcome" value={a.outcome} />
            </td>
            <td>{a.statusCode ?? '—'}</td>
            <td>{a.issueId ? <a href={`/console/issues/${a.issueId}`}>{a.externalKey ?? 'Issue'}</a> : (a.externalKey ?? '—')}</td>
            <td class="break">{a.error ?? ''}</td>
          </tr>
        ))}
      </Table>
    </>
  );
}
