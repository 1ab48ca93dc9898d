import { Agent, request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';

/** One request exactly as it goes on the wire: what fetch refuses (a GET with a body, repeated headers, any bytes). */
export interface RawRequest {
  method: string;
  /** Path and query, sent as is (no normalisation, no encoding). */
  path: string;
  /** A header given as an array is sent once per value. */
  headers: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The response's `content-type` without parameters, lower-cased ('' when absent). */
  mediaType: string;
}

/**
 * A keep-alive HTTP/1.1 client over node:http with a bounded number of sockets, for suites that
 * send thousands of requests with hand-made heads and bodies. `content-length` is set from the
 * body unless the request names it.
 */
export function rawHttpClient(baseUrl: string, opts: { maxSockets?: number; timeoutMs?: number } = {}) {
  const { hostname, port } = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 8 });
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const send = (req: RawRequest) =>
    new Promise<RawResponse>((resolve, reject) => {
      const headers: OutgoingHttpHeaders = { ...req.headers };
      if (req.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
        headers['content-length'] = Buffer.byteLength(req.body);
      }
      const outgoing = request({ host: hostname, port: Number(port), method: req.method, path: req.path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const type = res.headers['content-type'] ?? '';
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), mediaType: type.split(';')[0]!.trim().toLowerCase() });
        });
      });
      outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      outgoing.on('error', reject);
      outgoing.end(req.body);
    });
  return { send, close: () => agent.destroy() };
}
