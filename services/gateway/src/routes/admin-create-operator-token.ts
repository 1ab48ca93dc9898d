import { AppError, validationFailed } from '@preflight/http';
import { generateOperatorToken } from '../auth/operator-token-format.ts';
import { insertOperatorToken } from '../storage/operator-tokens.ts';
import { localEndpoint } from '../routing/route.ts';
import { iso } from './views.ts';

/**
 * POST /admin/v1/operator-tokens → 201 {id, name, scopes, token, createdAt, expiresAt}. The token
 * exists only in this response; we keep its hash. Writes need `admin:write` (the dispatcher's
 * 403 before this runs); beyond that, an operator token cannot mint a token that outlives it:
 * a caller whose token expires must give an `expiresAt` no later than its own.
 */
export const createOperatorToken = localEndpoint('adminCreateOperatorToken', {
  async handle({ admin, deps }, io) {
    if (!admin) throw new Error('POST /admin/v1/operator-tokens reached without an operator');
    const input = io.body;
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw validationFailed({ expiresAt: ['Must be in the future.'] });
    if (admin.scopes !== null && !input.scopes.every((s) => s === 'admin:read' || admin.scopes!.includes(s))) {
      throw new AppError('forbidden', 'An operator token cannot create a token with a scope it does not hold.');
    }
    if (admin.expiresAt !== null && (expiresAt === null || expiresAt > admin.expiresAt)) {
      throw validationFailed({ expiresAt: [`Must be no later than the calling token's own expiry, ${admin.expiresAt.toISOString()}.`] });
    }
    const generated = generateOperatorToken();
    const record = await insertOperatorToken(deps.db, {
      name: input.name,
      scopes: input.scopes,
      expiresAt,
      tokenHash: generated.hash,
      prefix: generated.prefix,
      lastFour: generated.lastFour,
    });
    io.send({
      id: record.id,
      name: record.name,
      scopes: record.scopes,
      token: generated.token,
      createdAt: record.createdAt.toISOString(),
      expiresAt: iso(record.expiresAt),
    });
  },
});
