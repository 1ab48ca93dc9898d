/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import { EMITTED_EVENT_TYPES } from '@preflight/contract';
import type { ComponentChildren } from 'preact';
import type { AdminWebhook, DeliveryAttempt } from '../../gateway-client/api-types.ts';
import { Field, PostForm, ProblemNotice, Select, Submit, options, type FormProblem } from '../components/form.tsx';
import { Badge, PageHeader, Table, Time } from '../components/ui.tsx';
import { fingerprint } from '../live.ts';
import { EnabledBadge, eventsText } from './webhooks-view.tsx';

/** Seconds between two polls of an endpoint's delivery log. */
export const DELIVERY_POLL_SECONDS = 2;

export interface DeliveryLogProps {
  webhook: AdminWebhook;
  deliveries: DeliveryAttempt[];
  csrf: string;
}

export const deliveryLogFingerprint = ({ webhook, deliveries }: Omit<DeliveryLogProps, 'csrf'>) =>
  fingerprint([webhook.isEnabled, webhook.consecutiveFailures, webhook.disabledAt, webhook.stats, deliveries.length, deliveries[0]?.deliveryId ?? null, deliveries[0]?.outcome ?? null]);

const base = (id: string) => `/console/settings/webhooks/${id}`;

function Stats({ webhook }: { webhook: AdminWebhook }) {
  const s = webhook.stats;
  return (
    <dl class="facts">
      <div>
        <dt>State</dt>
        <dd>
          <EnabledBadge webhook={webhook} />
          {webhook.disabledAt ? (
            <>
              {' '}
              since <Time iso={webhook.disabledAt} />
            </>
          ) : null}
        </dd>
      </div>
      <div>
        <dt>Failed deliveries in a row</dt>
        <dd>{webhook.consecutiveFailures} of 5</dd>
      </div>
      {s ? (
        <>
          <div>
            <dt>Attempts (24 h)</dt>
            <dd>
              {s.succeeded24h} succeeded of {s.attempts24h}
            </dd>
          </div>
          <div>
            <dt>Latency p50 / p99</dt>
            <dd>{s.p50Ms === null ? '—' : `${Math.round(s.p50Ms)} ms / ${Math.round(s.p99Ms ?? 0)} ms`}</dd>
          </div>
          <div>
            <dt>Last success</dt>
            <dd>
              <Time iso={s.lastSuccessAt} empty="Never" />
            </dd>
          </div>
          <div>
            <dt>Last failure</dt>
            <dd>
              <Time iso={s.lastFailureAt} empty="Never" />
            </dd>
          </div>
        </>
      ) : null}
    </dl>
  );
}

/**
 * The endpoint's state and delivery log, polled every 2 s (204 while unchanged, see live.ts):
 * a delivery, a failure streak or the endpoint being disabled shows up without reloading.
 */
export function DeliveryLog(props: DeliveryLogProps) {
  const { webhook, deliveries, csrf } = props;
  const poll = `${base(webhook.id)}/deliveries?seen=${deliveryLogFingerprint(props)}`;
  return (
    <div id="delivery-log" hx-get={poll} hx-trigger={`every ${DELIVERY_POLL_SECONDS}s`} hx-swap="outerHTML">
      <Stats webhook={webhook} />
      {webhook.isEnabled ? null : (
        <PostForm action={`${base(webhook.id)}/enable`} csrf={csrf} label="Re-enable the endpoint">
          <p>Deliveries are paused until the endpoint is re-enabled; it then gets the next event within a second.</p>
          <Submit>Re-enable endpoint</Submit>
        </PostForm>
      )}
      <Table caption="Delivery log, newest first (one row per attempt)" head={['When', 'Event', 'Attempt', 'Trigger', 'Outcome', 'Status', 'Duration', 'Response', '']} empty="Nothing delivered yet.">
        {deliveries.map((d) => (
          <tr>
            <td>
              <Time iso={d.attemptedAt} />
            </td>
            <td>{d.eventType}</td>
            <td>{d.attempt}</td>
            <td>{d.trigger}</td>
            <td>
              <Badge kind="outcome" value={d.outcome} />
            </td>
            <td>{d.statusCode ?? <span class="muted">none</span>}</td>
            <td>{d.durationMs === null ? '—' : `${d.durationMs} ms`}</td>
            <td>
              {d.error ? <span class="break">{d.error}</span> : null}
              {d.responseBody ? (
                <details>
                  <summary>Body</summary>
                  <pre>{d.responseBody}</pre>
                </details>
              ) : null}
              {d.error || d.responseBody ? null : <span class="muted">—</span>}
            </td>
            <td>
              <PostForm action={`${base(webhook.id)}/deliveries/${d.deliveryId}/redeliver`} csrf={csrf} label={`Redeliver attempt ${d.attempt} of ${d.eventType}`}>
                <Submit variant="secondary">Redeliver</Submit>
              </PostForm>
            </td>
          </tr>
        ))}
      </Table>
    </div>
  );
}

export interface WebhookPageProps extends DeliveryLogProps {
  problem?: FormProblem;
  /** What the last action did (a queued test, a recovery, a rotated secret), shown above the log. */
  outcome?: ComponentChildren;
}

/** `YYYY-MM-DDTHH:MM` in UTC, the value a datetime-local input shows. */
export const utcInputValue = (d: Date) => d.toISOString().slice(0, 16);

/** /console/settings/webhooks/:id: one endpoint, its live log and what an operator does with it. */
export function WebhookPage(props: WebhookPageProps) {
  const { webhook, csrf, problem, outcome } = props;
  return (
    <>
      <p class="breadcrumbs">
        <a href="/console/settings/webhooks">Webhooks</a>
      </p>
      <PageHeader title={webhook.name ?? 'Webhook endpoint'} />
      <p class="break">
        <code>{webhook.url}</code> — {eventsText(webhook.events)}, created <Time iso={webhook.createdAt} /> ({webhook.source === 'api' ? 'through the API' : 'on this page'})
      </p>
      <ProblemNotice problem={problem} />
      {outcome}
      <section aria-labelledby="log-heading">
        <h2 id="log-heading">Deliveries</h2>
        <DeliveryLog {...props} />
      </section>
      <section aria-labelledby="actions-heading">
        <h2 id="actions-heading">Actions</h2>
        <div class="grid-2">
          <PostForm action={`${base(webhook.id)}/test`} csrf={csrf} label="Send a test event">
            <h3>Send a test event</h3>
            <ProblemNotice problem={problem} form="test" />
            <Select form="test" name="eventType" label="Event" required problem={problem} options={options(EMITTED_EVENT_TYPES)} />
            <Submit variant="secondary">Send test</Submit>
          </PostForm>
          <PostForm action={`${base(webhook.id)}/recover`} csrf={csrf} label="Recover failed deliveries">
            <h3>Recover failed deliveries</h3>
            <ProblemNotice problem={problem} form="recover" />
            <Field form="recover" name="since" label="Since (UTC)" type="datetime-local" required problem={problem} value={utcInputValue(new Date(Date.now() - 86_400_000))} hint="Every event whose delivery failed since then is sent again (at most 30 days back)." />
            <Submit variant="secondary">Recover</Submit>
          </PostForm>
          <PostForm action={`${base(webhook.id)}/rotate`} csrf={csrf} label="Rotate the signing secret">
            <h3>Rotate the signing secret</h3>
            <ProblemNotice problem={problem} form="rotate" />
            <Field form="rotate" name="graceHours" label="Grace period (hours)" type="number" min={0} max={72} required problem={problem} value="24" hint="The old secret keeps signing beside the new one this long (0 to 72)." />
            <Submit variant="secondary">Rotate secret</Submit>
          </PostForm>
        </div>
      </section>
    </>
  );
}
