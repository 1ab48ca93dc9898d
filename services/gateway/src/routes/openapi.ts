import { buildOpenApiDocument } from '@preflight/contract';
import { sendJson } from '@preflight/http';
import type { LocalEndpoint } from '../routing/route.ts';

let document: unknown;

/** GET /api/v1/openapi.json: no key, no rate limit (spec section 9). Built once, on first use. */
export const openapi: LocalEndpoint = {
  async handle({ req, res }) {
    document ??= buildOpenApiDocument();
    res.setHeader('Cache-Control', 'public, max-age=300');
    sendJson(req, res, 200, document);
  },
};
