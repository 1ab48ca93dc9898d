/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Response } from 'express';
import type { EmittedEventType, IssueSeverity } from '@preflight/contract';
import { notFound, pathId } from '@preflight/http';
import type { CreatedIntegration, Integration, IntegrationSettings, IntegrationTestResult } from '../../gateway-client/api-types.ts';
import type { FormProblem, FormValues } from '../components/form.tsx';
import { requireRole, type PageRegistration } from '../context.ts';
import { backTo, Form, LocalRefusal, memberOf, show, submit, type Member } from '../page.tsx';
import { kindSettings, kindSpec } from './integration-kinds.ts';
import { IntegrationPage } from './integration-view.tsx';
import { IntegrationsPage } from './integrations-view.tsx';

export const INTEGRATIONS_PATH = '/console/settings/integrations';

async function showList(res: Response, m: Member, state: { created?: CreatedIntegration; problem?: FormProblem; values?: FormValues; status?: number } = {}) {
  const [integrations, campaigns] = await Promise.all([m.api.integrations.list(), m.api.campaigns.list()]);
  show(
    res,
    m,
    { title: 'Integrations', path: INTEGRATIONS_PATH, status: state.status },
    <IntegrationsPage integrations={integrations} campaigns={campaigns} csrf={m.session.csrf} {...state} />,
  );
}

/** No single-connection read in the admin API: the organisation's list (another organisation's id is absent: 404). */
async function integrationOf(m: Member, id: string): Promise<Integration> {
  const found = (await m.api.integrations.list()).find((i) => i.id === id);
  if (!found) throw notFound('integration', id);
  return found;
}

async function showIntegration(res: Response, m: Member, id: string, state: { tested?: IntegrationTestResult; problem?: FormProblem; status?: number } = {}) {
  const integration = await integrationOf(m, id);
  const activity = await m.api.integrations.activity(id);
  show(res, m, { title: integration.name, path: INTEGRATIONS_PATH, status: state.status }, <IntegrationPage integration={integration} activity={activity} csrf={m.session.csrf} {...state} />);
}

/** The connect form as the admin create takes it (integration-kinds.ts); the service checks the values. */
function connectRequest(form: Form): IntegrationSettings {
  const spec = kindSpec(form.text('kind'));
  if (!spec) throw new LocalRefusal({ kind: ['Must be one of slack, teams, github, jira, linear.'] });
  const minSeverity = form.optional('minSeverity') as IssueSeverity | null;
  const campaignIds = form.list('campaignIds');
  return {
    kind: spec.kind,
    name: form.text('name'),
    ...kindSettings(spec, (name) => form.text(name)),
    ...(spec.chat ? { events: form.list('events') as EmittedEventType[] } : {}),
    minSeverity,
    campaignIds: campaignIds.length ? campaignIds : null,
  };
}

/** Settings → Integrations (Owners and Admins): connect, test, pause, delete, activity. */
export const integrationPages: PageRegistration = (router, deps) => {
  const admin = requireRole('Admin');

  router.get('/settings/integrations', admin, async (_req, res) => {
    await showList(res, memberOf(deps.context(res)));
  });

  router.post('/settings/integrations', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    const form = Form.of(req);
    await submit(
      () => m.api.integrations.create(connectRequest(form)),
      (created) => showList(res, m, { created, status: 201 }),
      // Credentials are never sent back into the page.
      (problem, status) => showList(res, m, { problem, status, values: form.values(Object.keys(form.values()).filter((n) => n.startsWith('credentials.'))) }),
      kindSpec(form.text('kind'))?.kind,
    );
  });

  router.get('/settings/integrations/:id', admin, async (req, res) => {
    await showIntegration(res, memberOf(deps.context(res)), pathId(req.params.id, 'integration'));
  });

  router.post('/settings/integrations/:id/test', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    const id = pathId(req.params.id, 'integration');
    const tested = await m.api.integrations.test(id);
    await showIntegration(res, m, id, { tested });
  });

  for (const [action, paused] of [['pause', true], ['resume', false]] as const) {
    router.post(`/settings/integrations/:id/${action}`, admin, async (req, res) => {
      const m = memberOf(deps.context(res));
      const id = pathId(req.params.id, 'integration');
      await submit(
        () => m.api.integrations.update(id, { paused }),
        () => backTo(res, `${INTEGRATIONS_PATH}/${id}`),
        (problem, status) => showIntegration(res, m, id, { problem, status }),
      );
    });
  }

  router.post('/settings/integrations/:id/delete', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    await m.api.integrations.remove(pathId(req.params.id, 'integration'));
    backTo(res, INTEGRATIONS_PATH);
  });
};
