import { listOperatorTokens as listAll } from '../storage/operator-tokens.ts';
import { localEndpoint } from '../routing/route.ts';
import { operatorTokenView } from './views.ts';

/** GET /admin/v1/operator-tokens → 200, oldest first, revoked and expired tokens included, never a token or its hash. */
export const listOperatorTokens = localEndpoint('adminListOperatorTokens', {
  async handle({ deps }, io) {
    io.send((await listAll(deps.db)).map(operatorTokenView));
  },
});
