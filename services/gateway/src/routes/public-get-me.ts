import { localEndpoint } from '../routing/route.ts';

/** GET /api/v1/me: the calling key and its organisation, for any valid key (spec 4.1). */
export const me = localEndpoint('getMe', {
  async handle({ key }, io) {
    if (!key) throw new Error('GET /api/v1/me reached without an authenticated key');
    io.send({
      organization: { id: key.orgId, name: key.orgName },
      key: { id: key.keyId, name: key.keyName, scopes: key.scopes },
    });
  },
});
