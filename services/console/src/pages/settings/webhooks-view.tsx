/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import { EMITTED_EVENT_TYPES, RESERVED_EVENT_TYPES } from '@preflight/contract';
import type { AdminWebhook, CreatedWebhook } from '../../gateway-client/api-types.ts';
import { Choices, Field, PostForm, ProblemNotice, Submit, options, type FormProblem, type FormValues } from '../components/form.tsx';
import { PageHeader, ShownOnce, Table, Time } from '../components/ui.tsx';

export interface WebhooksPageProps {
  webhooks: AdminWebhook[];
  csrf: string;
  created?: CreatedWebhook;
  problem?: FormProblem;
  values?: FormValues;
}

const list = (v: FormValues[string]) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const text = (v: FormValues[string]) => (typeof v === 'string' ? v : undefined);

export function EnabledBadge({ webhook }: { webhook: AdminWebhook }) {
  return webhook.isEnabled ? <span class="badge badge-state badge-state-active">Enabled</span> : <span class="badge badge-state badge-state-disabled">Disabled</span>;
}

export function eventsText(events: string[] | null): string {
  return events && events.length ? events.join(', ') : 'Every event';
}

/** /console/settings/webhooks: the endpoints, their health, and subscribing a new one. */
export function WebhooksPage({ webhooks, csrf, created, problem, values }: WebhooksPageProps) {
  return (
    <>
      <PageHeader title="Webhooks" />
      <p>Preflight sends a signed POST to each endpoint when campaigns and issues change. Five failed deliveries in a row disable an endpoint until it is re-enabled here.</p>
      {created ? (
        <ShownOnce
          id="new-secret"
          label="Endpoint subscribed: its signing secret"
          value={created.secret ?? ''}
          note="Verify every delivery's X-Service-Signature with it. It is shown only this once; rotate it from the endpoint's page if it is lost."
        />
      ) : null}
      {created ? (
        <p>
          <a href={`/console/settings/webhooks/${created.id}`}>Open the new endpoint's page</a>
        </p>
      ) : null}
      <Table caption="Webhook endpoints" head={['Endpoint', 'URL', 'Events', 'State', 'Failures in a row', 'Delivered (24 h)', 'Created']} empty="No endpoints yet.">
        {webhooks.map((w) => (
          <tr>
            <th scope="row">
              <a href={`/console/settings/webhooks/${w.id}`}>{w.name ?? w.url ?? w.id}</a>
            </th>
            <td class="break">{w.url}</td>
            <td>{eventsText(w.events)}</td>
            <td>
              <EnabledBadge webhook={w} />
              {w.disabledAt ? (
                <>
                  {' '}
                  since <Time iso={w.disabledAt} />
                </>
              ) : null}
            </td>
            <td>{w.consecutiveFailures}</td>
            <td>{w.stats ? `${w.stats.succeeded24h} of ${w.stats.attempts24h}` : <span class="muted">—</span>}</td>
            <td>
              <Time iso={w.createdAt} />
            </td>
          </tr>
        ))}
      </Table>
      <section aria-labelledby="new-webhook-heading">
        <h2 id="new-webhook-heading">Subscribe an endpoint</h2>
        <ProblemNotice problem={problem} />
        <PostForm action="/console/settings/webhooks" csrf={csrf} label="Subscribe an endpoint">
          <Field name="url" label="URL" type="url" required problem={problem} value={text(values?.url)} hint="Where deliveries are POSTed; it must be reachable from the internet." />
          <Field name="name" label="Name" problem={problem} value={text(values?.name)} hint="A label for this page (optional)." />
          <Choices name="events" legend="Events" problem={problem} options={options(EMITTED_EVENT_TYPES)} checked={list(values?.events)} hint="None selected: every event, including those added later." />
          <details>
            <summary>Reserved events (selectable, not emitted yet)</summary>
            <Choices name="events" legend="Reserved events" form="reserved" options={options(RESERVED_EVENT_TYPES)} checked={list(values?.events)} />
          </details>
          <Submit>Subscribe</Submit>
        </PostForm>
      </section>
    </>
  );
}
