import type { Express, Request, Response } from 'express';
import { ENDPOINTS, type Endpoint, type EndpointId, type HttpMethod, type QueryOf, type RequestOf, type ResponseOf } from '@preflight/contract';
import { parseBody, parseQuery, sendJson } from '@preflight/http';

/**
 * What a handler gets besides the request and response, typed by the manifest entry:
 * `send(body, status?)` answers the declared success body as JSON (status: the entry's);
 * `body` and `query` are the request's, parsed by the entry's schemas when first read (422 for
 * a bad body, 400 for a bad query), so a handler checks access and path ids before them.
 */
export interface EndpointIo<K extends EndpointId> {
  send(body: ResponseOf<K>, status?: number): void;
  readonly body: RequestOf<K>;
  readonly query: QueryOf<K>;
}

export type EndpointHandler<K extends EndpointId> = (req: Request, res: Response, io: EndpointIo<K>) => unknown;

/**
 * The `io` of manifest entry `id` for one request: `send` answers through `sendJson` with the
 * entry's success status unless given; `body` and `query` parse with the entry's schemas.
 * `route()` hands it to route files; the gateway's own endpoints get it the same way.
 */
export function endpointIo<K extends EndpointId>(id: K, req: Request, res: Response): EndpointIo<K> {
  const entry: Endpoint = ENDPOINTS[id];
  return {
    send: (body, status = entry.response?.status ?? 200) => sendJson(req, res, status, body),
    get body() {
      if (!entry.request?.body) throw new Error(`manifest entry ${id} declares no request body`);
      return parseBody(entry.request.body, req.body) as RequestOf<K>;
    },
    get query() {
      if (!entry.request?.query) throw new Error(`manifest entry ${id} declares no query`);
      return parseQuery(entry.request.query, req.query) as QueryOf<K>;
    },
  };
}

/**
 * Serves manifest entry `id` at the entry's own method and path: a route file names its
 * endpoint and never restates where it lives, and sends only the body the manifest declares.
 */
export function route<K extends EndpointId>(app: Express, id: K, handler: EndpointHandler<K>): void {
  const method = ENDPOINTS[id].method.toLowerCase() as Lowercase<HttpMethod>;
  app[method](ENDPOINTS[id].path, (req, res) => handler(req, res, endpointIo(id, req, res)));
}
