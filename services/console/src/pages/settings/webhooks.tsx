/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Request, Response } from 'express';
import type { ComponentChildren } from 'preact';
import type { EmittedEventType } from '@preflight/contract';
import { notFound, pathId } from '@preflight/http';
import type { AdminWebhook, CreatedWebhook } from '../../gateway-client/api-types.ts';
import type { FormProblem, FormValues } from '../components/form.tsx';
import { Notice, ShownOnce, Time } from '../components/ui.tsx';
import { requireRole, sendFragment, type PageRegistration } from '../context.ts';
import { unchanged } from '../live.ts';
import { backTo, Form, memberOf, show, submit, type Member } from '../page.tsx';
import { DeliveryLog, deliveryLogFingerprint, WebhookPage } from './webhook-view.tsx';
import { WebhooksPage } from './webhooks-view.tsx';

export const WEBHOOKS_PATH = '/console/settings/webhooks';

async function showList(res: Response, m: Member, state: { created?: CreatedWebhook; problem?: FormProblem; values?: FormValues; status?: number } = {}) {
  const webhooks = await m.api.webhooks.list();
  show(res, m, { title: 'Webhooks', path: WEBHOOKS_PATH, status: state.status }, <WebhooksPage webhooks={webhooks} csrf={m.session.csrf} {...state} />);
}

/** The admin API has no single-endpoint read: the organisation's list, where another organisation's id is simply absent (404). */
async function webhookOf(m: Member, id: string): Promise<AdminWebhook> {
  const found = (await m.api.webhooks.list()).find((w) => w.id === id);
  if (!found) throw notFound('webhook', id);
  return found;
}

async function showWebhook(res: Response, m: Member, id: string, state: { problem?: FormProblem; outcome?: ComponentChildren; status?: number } = {}) {
  const webhook = await webhookOf(m, id);
  const deliveries = await m.api.webhooks.deliveries(id);
  show(
    res,
    m,
    { title: webhook.name ?? 'Webhook endpoint', path: WEBHOOKS_PATH, status: state.status },
    <WebhookPage webhook={webhook} deliveries={deliveries} csrf={m.session.csrf} problem={state.problem} outcome={state.outcome} />,
  );
}

/** `YYYY-MM-DDTHH:MM` from a datetime-local input, read as UTC (the field says so). */
function utcInstant(value: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00Z` : value;
}

/** Settings → Webhooks (Owners and Admins): endpoints, each one's live log and operations. */
export const webhookPages: PageRegistration = (router, deps) => {
  const admin = requireRole('Admin');
  const act = <T,>(path: string, form: string | undefined, call: (m: Member, id: string, f: Form, req: Request) => Promise<T>, outcome: (result: T) => ComponentChildren) => {
    router.post(`/settings/webhooks/:id/${path}`, admin, async (req, res) => {
      const m = memberOf(deps.context(res));
      const id = pathId(req.params.id, 'webhook');
      const f = Form.of(req);
      await submit(
        () => call(m, id, f, req),
        (result) => showWebhook(res, m, id, { outcome: outcome(result), status: 202 }),
        (problem, status) => showWebhook(res, m, id, { problem, status }),
        form,
      );
    });
  };

  router.get('/settings/webhooks', admin, async (_req, res) => {
    await showList(res, memberOf(deps.context(res)));
  });

  router.post('/settings/webhooks', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    const form = Form.of(req);
    await submit(
      () => m.api.webhooks.create({ url: form.text('url'), name: form.optional('name'), events: form.list('events') }),
      (created) => showList(res, m, { created, status: 201 }),
      (problem, status) => showList(res, m, { problem, status, values: form.values() }),
    );
  });

  router.get('/settings/webhooks/:id', admin, async (req, res) => {
    await showWebhook(res, memberOf(deps.context(res)), pathId(req.params.id, 'webhook'));
  });

  // The live log (webhook-view.tsx): 204 while nothing changed.
  router.get('/settings/webhooks/:id/deliveries', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    const id = pathId(req.params.id, 'webhook');
    const [webhook, deliveries] = await Promise.all([webhookOf(m, id), m.api.webhooks.deliveries(id)]);
    if (unchanged(req.query.seen, deliveryLogFingerprint({ webhook, deliveries }))) {
      res.status(204).setHeader('Cache-Control', 'no-store').end();
      return;
    }
    sendFragment(res, <DeliveryLog webhook={webhook} deliveries={deliveries} csrf={m.session.csrf} />);
  });

  router.post('/settings/webhooks/:id/enable', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    const id = pathId(req.params.id, 'webhook');
    await m.api.webhooks.enable(id);
    backTo(res, `${WEBHOOKS_PATH}/${id}`);
  });

  act('test', 'test', (m, id, f) => m.api.webhooks.test(id, f.text('eventType') as EmittedEventType), (q) => (
    <Notice kind="success">
      Test delivery queued (delivery <code>{q.deliveryId}</code>): it appears in the log below.
    </Notice>
  ));
  act('deliveries/:deliveryId/redeliver', undefined, (m, id, _f, req) => m.api.webhooks.redeliver(id, pathId(req.params.deliveryId, 'delivery')), (q) => (
    <Notice kind="success">
      Sent again as delivery <code>{q.deliveryId}</code>.
    </Notice>
  ));
  act('recover', 'recover', (m, id, f) => m.api.webhooks.recover(id, utcInstant(f.text('since').trim())), (r) => (
    <Notice kind="success">
      {r.count === 0 ? 'No failed delivery to recover in that time.' : `${r.count} failed deliver${r.count === 1 ? 'y is' : 'ies are'} being sent again.`}
    </Notice>
  ));
  act('rotate', 'rotate', (m, id, f) => m.api.webhooks.rotateSecret(id, f.integer('graceHours') as number), (r) => (
    <>
      <ShownOnce id="rotated-secret" label="The new signing secret" value={r.secret} />
      <p>
        The previous secret keeps signing beside it until <Time iso={r.previousSecretExpiresAt} />.
      </p>
    </>
  ));
};
