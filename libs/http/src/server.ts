import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from '@preflight/log';

export interface ServeOptions {
  app: Express;
  port: number;
  host?: string;
  logger: Logger;
  /** Called once SIGTERM/SIGINT arrives, before the listener closes (readiness goes 503). */
  onDrain?: () => void;
  /** Resources to release after the last in-flight request finished, in order. */
  onShutdown?: Array<() => Promise<unknown>>;
  /** How long in-flight requests get to finish before their connections are cut. */
  shutdownTimeoutMs?: number;
  /** Exit the process once shut down (off in tests that run several apps in one process). */
  exitOnShutdown?: boolean;
}

/**
 * How long a client may take, on every service's port. Node's defaults held a slow-header
 * connection 66 s and a trickled body 300 s; the limits are checked every second, not every 30.
 */
export const SERVER_TIMEOUTS = {
  /** From the first byte of a request to the end of its headers: 408 and closed after. */
  headersMs: 10_000,
  /** From the first byte of a request to the end of its body. */
  requestMs: 30_000,
  /** An idle keep-alive connection; longer than load balancers' idle timeouts (60 s), so they close first. */
  keepAliveMs: 65_000,
  checkIntervalMs: 1_000,
} as const;

export interface RunningServer {
  server: Server;
  port: number;
  shutdown(reason?: string): Promise<void>;
}

/**
 * An HTTP server for an express app whose requests and responses are born with the app's
 * prototypes (`app.request`, `app.response`). express's `app.listen` hands it plain
 * IncomingMessage and ServerResponse objects and `app.handle` then re-parents both with
 * `Object.setPrototypeOf`, on every request, and V8 pays for that with new hidden classes in the
 * old generation: longer young-generation GCs and a longer tail (measured in
 * docs/benchmarks-history.md). Here `app.handle`'s `setPrototypeOf` is a no-op (same
 * prototype). Apps mounted inside the app would still re-parent; none is.
 */
export function createAppServer(app: Express): Server {
  function AppRequest(this: IncomingMessage, socket: ConstructorParameters<typeof IncomingMessage>[0]) {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: unknown) {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  return createServer(
    {
      IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof ServerResponse,
      headersTimeout: SERVER_TIMEOUTS.headersMs,
      requestTimeout: SERVER_TIMEOUTS.requestMs,
      keepAliveTimeout: SERVER_TIMEOUTS.keepAliveMs,
      connectionsCheckingInterval: SERVER_TIMEOUTS.checkIntervalMs,
    },
    app,
  );
}

/**
 * Listens, and on SIGTERM/SIGINT stops gracefully: readiness fails first, the listener stops
 * accepting, in-flight requests finish (or are cut at the deadline), then pools and
 * connections close. Nothing acknowledged is lost by a rolling update.
 */
export async function serve(opts: ServeOptions): Promise<RunningServer> {
  const { app, logger } = opts;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createAppServer(app);
    s.once('error', reject);
    s.listen(opts.port, opts.host ?? '0.0.0.0', () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  logger.info({ port }, 'listening');

  let stopping: Promise<void> | undefined;
  const shutdown = (reason = 'shutdown') =>
    (stopping ??= (async () => {
      logger.info({ reason }, 'draining');
      opts.onDrain?.();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), opts.shutdownTimeoutMs ?? 10_000);
      await closed;
      clearTimeout(deadline);
      for (const release of opts.onShutdown ?? []) {
        try {
          await release();
        } catch (err) {
          logger.warn({ err }, 'error while releasing a resource at shutdown');
        }
      }
      logger.info('stopped');
      if (opts.exitOnShutdown ?? true) process.exit(0);
    })());

  if (opts.exitOnShutdown ?? true) {
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
  }
  return { server, port, shutdown };
}

/** A crash must not be silent: log it with its trace and let the orchestrator restart us. */
export function exitOnFatalErrors(logger: Logger): void {
  process.on('unhandledRejection', (err) => {
    logger.fatal({ err }, 'unhandled promise rejection');
    process.exit(1);
  });
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    process.exit(1);
  });
}
