import { buildOpenApiDocument } from '@preflight/contract';
import { sendJsonText } from '@preflight/http';
import { localEndpoint } from '../routing/route.ts';

let document: string | undefined;

/**
 * GET /api/v1/openapi.json: no key, no rate limit (spec section 9). Built and serialised once,
 * on first use, and sent as that text: the manifest gives the document no body schema to check.
 */
export const openapi = localEndpoint('getOpenApiDocument', {
  async handle({ req, res }) {
    document ??= JSON.stringify(buildOpenApiDocument());
    res.setHeader('Cache-Control', 'public, max-age=300');
    sendJsonText(req, res, 200, document);
  },
});
