/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Response } from 'express';
import type { Scope } from '@preflight/contract';
import { pathId } from '@preflight/http';
import type { CreatedApiKey } from '../../gateway-client/api-types.ts';
import type { FormProblem, FormValues } from '../components/form.tsx';
import { requireRole, type PageRegistration } from '../context.ts';
import { backTo, Form, memberOf, show, submit, type Member } from '../page.tsx';
import { ApiKeysPage } from './api-keys-view.tsx';

export const API_KEYS_PATH = '/console/settings/api-keys';

async function showKeys(res: Response, m: Member, state: { created?: CreatedApiKey; problem?: FormProblem; values?: FormValues; status?: number } = {}) {
  const keys = await m.api.apiKeys.list();
  show(res, m, { title: 'API keys', path: API_KEYS_PATH, status: state.status }, <ApiKeysPage keys={keys} csrf={m.session.csrf} created={state.created} problem={state.problem} values={state.values} />);
}

/** Settings → API keys (Owners and Admins). A new key is shown in the answer to its creation, and never again. */
export const apiKeyPages: PageRegistration = (router, deps) => {
  const admin = requireRole('Admin');

  router.get('/settings/api-keys', admin, async (_req, res) => {
    await showKeys(res, memberOf(deps.context(res)));
  });

  router.post('/settings/api-keys', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    const form = Form.of(req);
    const environment = form.text('environment');
    await submit(
      () => m.api.apiKeys.create({ name: form.text('name'), scopes: form.list('scopes') as Scope[], ...(environment ? { environment: environment as 'live' | 'test' } : {}) }),
      (created) => showKeys(res, m, { created, status: 201 }),
      (problem, status) => showKeys(res, m, { problem, status, values: form.values() }),
    );
  });

  router.post('/settings/api-keys/:keyId/revoke', admin, async (req, res) => {
    const m = memberOf(deps.context(res));
    await m.api.apiKeys.revoke(pathId(req.params.keyId, 'API key'));
    backTo(res, API_KEYS_PATH);
  });
};
