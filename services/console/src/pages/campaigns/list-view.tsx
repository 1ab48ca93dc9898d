/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { PublicCampaign, ReadinessReport, Site } from '../../gateway-client/api-types.ts';
import { Field, PostForm, ProblemNotice, Select, Submit, type FormProblem, type FormValues } from '../components/form.tsx';
import { Badge, Gate, PageHeader, Readiness, Table, Time } from '../components/ui.tsx';

export interface CampaignRow {
  campaign: PublicCampaign;
  /** The readiness report's sign-off counts; null when it could not be read. */
  report: ReadinessReport | null;
}

export interface CampaignsPageProps {
  rows: CampaignRow[];
  sites: Site[];
  /** Owners and Admins create sites and campaigns. */
  canManage: boolean;
  csrf: string;
  problem?: FormProblem;
  values?: FormValues;
}

function SignOff({ report }: { report: ReadinessReport | null }) {
  if (!report) return <span class="muted">—</span>;
  if (report.requiredCount === 0) return <span class="muted">No signers</span>;
  return (
    <span>
      {report.signedCount + report.waivedCount} of {report.requiredCount}
    </span>
  );
}

const str = (v: FormValues[string]) => (typeof v === 'string' ? v : undefined);

/** /console/campaigns: every campaign with its status, verdict, gate and sign-offs at a glance. */
export function CampaignsPage({ rows, sites, canManage, csrf, problem, values = {} }: CampaignsPageProps) {
  // The values sent come back only into the form that was refused.
  const campaign = problem?.form === 'campaign' ? values : {};
  const site = problem?.form === 'site' ? values : {};
  return (
    <>
      <PageHeader title="Campaigns" />
      <Table caption="Campaigns of the organisation, newest first" head={['Campaign', 'Site', 'Status', 'Readiness', 'Gate', 'Sign-offs', 'Created']} empty="No campaigns yet.">
        {rows.map(({ campaign: c, report }) => (
          <tr>
            <th scope="row">
              <a href={`/console/campaigns/${c.id}`}>{c.name ?? c.id}</a>
            </th>
            <td>{c.siteName}</td>
            <td>
              <Badge kind="campaign" value={c.status} />
            </td>
            <td>
              <Readiness level={c.readinessLevel} />
            </td>
            <td>
              <Gate gate={c.gate} />
            </td>
            <td>
              <SignOff report={report} />
            </td>
            <td>
              <Time iso={c.createdAt} />
            </td>
          </tr>
        ))}
      </Table>
      {canManage ? (
        <div class="grid-2">
          <section aria-labelledby="new-campaign">
            <h2 id="new-campaign">New campaign</h2>
            <ProblemNotice problem={problem} form="campaign" />
            {sites.length === 0 ? (
              <p class="muted">Create a site first: every campaign belongs to one.</p>
            ) : (
              <PostForm action="/console/campaigns" csrf={csrf} label="New campaign">
                <Select form="campaign" name="siteId" label="Site" required problem={problem} value={str(campaign.siteId)} options={sites.map((s) => ({ value: s.id, label: s.name }))} />
                <Field form="campaign" name="name" label="Name" required problem={problem} value={str(campaign.name)} />
                <Submit>Create campaign</Submit>
              </PostForm>
            )}
          </section>
          <section aria-labelledby="new-site">
            <h2 id="new-site">New site</h2>
            <ProblemNotice problem={problem} form="site" />
            <PostForm action="/console/campaigns/sites" csrf={csrf} label="New site">
              <Field form="site" name="name" label="Name" required problem={problem} value={str(site.name)} />
              <Field form="site" name="url" label="URL" type="url" hint="The address of the site under test (optional)." problem={problem} value={str(site.url)} />
              <Submit>Create site</Submit>
            </PostForm>
          </section>
        </div>
      ) : null}
    </>
  );
}
