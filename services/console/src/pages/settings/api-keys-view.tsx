/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import { SCOPES } from '@preflight/contract';
import type { ApiKey, CreatedApiKey } from '../../gateway-client/api-types.ts';
import { Choices, Confirm, Field, PostForm, ProblemNotice, Submit, options, type FormProblem, type FormValues } from '../components/form.tsx';
import { Badge, PageHeader, ShownOnce, Table, Time } from '../components/ui.tsx';

export interface ApiKeysPageProps {
  keys: ApiKey[];
  csrf: string;
  created?: CreatedApiKey;
  problem?: FormProblem;
  values?: FormValues;
}

const list = (v: FormValues[string]) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** /console/settings/api-keys: the organisation's keys for /api/v1. */
export function ApiKeysPage({ keys, csrf, created, problem, values }: ApiKeysPageProps) {
  return (
    <>
      <PageHeader title="API keys" />
      <p>Keys authenticate your tooling on the public API (<code>/api/v1</code>). Each carries the scopes it needs, nothing more.</p>
      {created ? <ShownOnce id="new-key" label={`Key “${created.name}” created`} value={created.key} /> : null}
      <Table caption="API keys" head={['Name', 'Key', 'Scopes', 'Created', 'Last used', 'State', '']} empty="No keys yet.">
        {keys.map((k) => (
          <tr>
            <th scope="row">{k.name}</th>
            <td>
              <code>
                {k.prefix}…{k.lastFour}
              </code>
            </td>
            <td>{k.scopes.length ? k.scopes.join(', ') : <span class="muted">none (only /api/v1/me)</span>}</td>
            <td>
              <Time iso={k.createdAt} />
            </td>
            <td>
              <Time iso={k.lastUsedAt} empty="Never" />
            </td>
            <td>{k.revokedAt ? <Badge kind="state" value="Revoked" /> : <Badge kind="state" value="Active" />}</td>
            <td>
              {k.revokedAt ? null : (
                <Confirm
                  summary={`Revoke ${k.name}…`}
                  question={`Revoke “${k.name}”? Every request using it is refused from then on.`}
                  action={`/console/settings/api-keys/${k.id}/revoke`}
                  csrf={csrf}
                  button="Revoke key"
                />
              )}
            </td>
          </tr>
        ))}
      </Table>
      <section aria-labelledby="new-key-heading">
        <h2 id="new-key-heading">Create a key</h2>
        <ProblemNotice problem={problem} />
        <PostForm action="/console/settings/api-keys" csrf={csrf} label="Create a key">
          <Field name="name" label="Name" required problem={problem} value={typeof values?.name === 'string' ? values.name : undefined} hint="What uses it, e.g. “CI pipeline”." />
          <Choices name="scopes" legend="Scopes" problem={problem} options={options(SCOPES)} checked={list(values?.scopes)} hint="read: campaigns, issues, events; write: file issues; webhooks: manage webhooks." />
          <Choices
            name="environment"
            legend="Environment"
            radio
            problem={problem}
            options={[
              { value: '', label: "The deployment's own" },
              { value: 'live', label: 'live (svc_live_)' },
              { value: 'test', label: 'test (svc_test_)' },
            ]}
            checked={[typeof values?.environment === 'string' ? values.environment : '']}
          />
          <Submit>Create key</Submit>
        </PostForm>
      </section>
    </>
  );
}
