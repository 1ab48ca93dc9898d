import type { ResponseOf } from '@preflight/contract';
import { sendJson } from '@preflight/http';
import type { LocalEndpoint } from '../routing/route.ts';

/** GET /api/v1/me: the calling key and its organisation, for any valid key (spec 4.1). */
export const me: LocalEndpoint = {
  async handle({ req, res, key }) {
    if (!key) throw new Error('GET /api/v1/me reached without an authenticated key');
    const body: ResponseOf<'getMe'> = {
      organization: { id: key.orgId, name: key.orgName },
      key: { id: key.keyId, name: key.keyName, scopes: key.scopes },
    };
    sendJson(req, res, 200, body);
  },
};
