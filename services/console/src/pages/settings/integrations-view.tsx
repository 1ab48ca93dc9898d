/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import { EMITTED_EVENT_TYPES, ISSUE_SEVERITIES } from '@preflight/contract';
import type { CreatedIntegration, Integration, PublicCampaign } from '../../gateway-client/api-types.ts';
import { Choices, Field, PostForm, ProblemNotice, Select, Submit, TextArea, options, type FormProblem, type FormValues } from '../components/form.tsx';
import { Badge, PageHeader, ShownOnce, Table, Time } from '../components/ui.tsx';
import { KINDS, type KindSpec } from './integration-kinds.ts';

export interface IntegrationsPageProps {
  integrations: Integration[];
  campaigns: PublicCampaign[];
  csrf: string;
  /** A connection just made: a tracker's inbound secret is shown this once. */
  created?: CreatedIntegration;
  problem?: FormProblem;
  values?: FormValues;
}

const list = (v: FormValues[string]) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const text = (v: FormValues[string]) => (typeof v === 'string' ? v : undefined);

export function StatusBadge({ integration }: { integration: Integration }) {
  return (
    <>
      <Badge kind="integration" value={integration.status} />
      {integration.paused ? <span class="badge badge-state badge-state-disabled">Paused</span> : null}
    </>
  );
}

/** One kind's connect form, folded away until asked for (opened again when it was refused). */
function ConnectForm({ spec, campaigns, csrf, problem, values }: { spec: KindSpec; campaigns: PublicCampaign[]; csrf: string; problem?: FormProblem; values: FormValues }) {
  const form = spec.kind;
  const mine = problem?.form === form;
  const v = mine ? values : {};
  return (
    <details class="connect" open={mine}>
      <summary>Connect {spec.label}</summary>
      <ProblemNotice problem={problem} form={form} />
      <PostForm action="/console/settings/integrations" csrf={csrf} label={`Connect ${spec.label}`}>
        <input type="hidden" name="kind" value={spec.kind} />
        <Field form={form} name="name" label="Name" required problem={problem} value={text(v.name)} />
        {spec.fields.map((f) =>
          f.type === 'map' ? (
            <TextArea form={form} name={f.name} label={f.label} hint={f.hint} rows={3} problem={problem} value={text(v[f.name])} />
          ) : (
            <Field
              form={form}
              name={f.name}
              label={f.label}
              hint={f.hint}
              required={f.required}
              type={f.type === 'list' ? 'text' : f.type}
              autocomplete={f.type === 'password' ? 'off' : undefined}
              problem={problem}
              value={f.type === 'password' ? undefined : text(v[f.name])}
            />
          ),
        )}
        {spec.chat ? (
          <Choices form={form} name="events" legend="Announce" problem={problem} options={options(EMITTED_EVENT_TYPES)} checked={mine ? list(v.events) : ['IssueCreated']} />
        ) : null}
        <Select form={form} name="minSeverity" label="Lowest severity" blank="Every severity" problem={problem} options={options(ISSUE_SEVERITIES)} value={text(v.minSeverity)} />
        {campaigns.length > 0 ? (
          <Choices
            form={form}
            name="campaignIds"
            legend="Campaigns"
            hint="None selected: every campaign, including new ones."
            problem={problem}
            options={campaigns.map((c) => ({ value: c.id, label: c.name ?? c.id }))}
            checked={list(v.campaignIds)}
          />
        ) : null}
        <Submit>Connect {spec.label}</Submit>
      </PostForm>
    </details>
  );
}

/** /console/settings/integrations: chat channels and issue trackers. */
export function IntegrationsPage({ integrations, campaigns, csrf, created, problem, values = {} }: IntegrationsPageProps) {
  return (
    <>
      <PageHeader title="Integrations" />
      <p>Chat channels announce issues; trackers get every issue of a connected campaign and keep its status in step both ways. Credentials are stored encrypted and never shown again.</p>
      {created?.inbound?.secret ? (
        <>
          <ShownOnce id="inbound-secret" label={`${created.name}: the tracker webhook's secret`} value={created.inbound.secret} note="Register the URL below in the tracker's webhook settings with this secret. It is shown only this once." />
          <p>
            Webhook URL: <code class="break">{created.inbound.url}</code>
          </p>
        </>
      ) : null}
      <Table caption="Connections" head={['Name', 'Kind', 'Status', 'Last success', 'Last error', 'Created']} empty="Nothing connected yet.">
        {integrations.map((i) => (
          <tr>
            <th scope="row">
              <a href={`/console/settings/integrations/${i.id}`}>{i.name}</a>
            </th>
            <td>{i.kind}</td>
            <td>
              <StatusBadge integration={i} />
            </td>
            <td>
              <Time iso={i.lastSuccessAt} empty="Never" />
            </td>
            <td class="break">{i.lastError ?? ''}</td>
            <td>
              <Time iso={i.createdAt} />
            </td>
          </tr>
        ))}
      </Table>
      <section aria-labelledby="connect-heading">
        <h2 id="connect-heading">Connect</h2>
        {KINDS.map((spec) => (
          <ConnectForm spec={spec} campaigns={campaigns} csrf={csrf} problem={problem} values={values} />
        ))}
      </section>
    </>
  );
}
