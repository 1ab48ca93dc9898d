/**
 * The "bare express" baseline, run as its own process (forked by lib/baseline.ts): express 5
 * with the same app settings as libs/http createApp (no x-powered-by, no ETag) and the same
 * JSON body parser on POST, served by the same libs/http `createAppServer`, but no auth, tracing, metrics, logging, validation or database.
 * The list route answers the very bytes the issue service answered; create answers a fixed
 * {id, seqNumber} 201 with a Location header, as the issue service does.
 *
 * Protocol: the parent sends one `BaselineConfig` message; the child listens on an ephemeral
 * loopback port and replies `{ port }`. It exits when the parent disconnects or on SIGTERM.
 */
import type { Server } from 'node:http';
import express from 'express';
import { createAppServer } from '@preflight/http';

export interface BaselineConfig {
  listBody: string;
  listContentType: string;
  createBody: string;
  createLocation: string;
  contentType: string;
}

function serve(cfg: BaselineConfig): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/api/v1/campaigns/:id/issues', (_req, res) => {
    res.status(200).setHeader('Content-Type', cfg.listContentType);
    res.send(cfg.listBody);
  });
  app.post('/api/v1/campaigns/:id/issues', express.json(), (_req, res) => {
    res.status(201).setHeader('Content-Type', cfg.contentType);
    res.setHeader('Location', cfg.createLocation);
    res.send(cfg.createBody);
  });
  return new Promise((resolve, reject) => {
    // Served the way libs/http serve() serves the services (requests born with express's prototypes).
    const server = createAppServer(app);
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
    // Same keep-alive settings as libs/http serve().
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  });
}

if (!process.send) {
  console.error('baseline-server.ts is started by the benchmark harness over IPC');
  process.exit(2);
}
let server: Server | undefined;
const stop = () => {
  server?.closeAllConnections();
  server?.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('disconnect', stop);
process.once('message', async (cfg: BaselineConfig) => {
  server = await serve(cfg);
  const addr = server.address();
  process.send!({ port: typeof addr === 'object' && addr ? addr.port : 0 });
});
