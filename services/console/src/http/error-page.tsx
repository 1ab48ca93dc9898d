/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError, isDependencyOutage } from '@preflight/http';
import type { Logger } from '@preflight/log';
import { AdminApiError } from '../gateway-client/fetch.ts';
import { isRedisOutage } from '@preflight/redis';
import { render } from '../views/layout.tsx';
import { ProblemPage } from '../views/problem-page.tsx';
import { sendHtml } from './security.ts';
import { localsOf } from './session.ts';

interface Shown {
  status: number;
  detail: string;
  retryAfter?: number | undefined;
}

const NOT_FOUND = 'There is nothing here. It may have been removed, or the link may be wrong.';
const UNAVAILABLE = 'Part of Preflight is not answering just now. Try again in a moment.';

/** Whether a page asked for by the browser may come back after sign-in: only the console's own paths. */
export function safeNext(path: unknown): string | undefined {
  return typeof path === 'string' && path.startsWith('/console/') && !path.startsWith('//') && !path.includes('\\') ? path : undefined;
}

/** Sign in first: a page load goes to the sign-in page (and back after), an htmx request reloads there. */
function toSignIn(req: Request, res: Response): void {
  const next = req.method === 'GET' ? safeNext(req.originalUrl) : undefined;
  const target = `/console/sign-in${next && next !== '/console/' ? `?next=${encodeURIComponent(next)}` : ''}`;
  res.setHeader('Cache-Control', 'no-store');
  if (req.get('hx-request') === 'true') {
    res.setHeader('HX-Redirect', target);
    res.status(401).end();
    return;
  }
  res.redirect(303, target);
}

function classify(err: unknown, logger: Logger, req: Request): Shown {
  if (err instanceof AdminApiError) {
    if (err.status === 404) return { status: 404, detail: NOT_FOUND };
    if (err.status === 403) return { status: 403, detail: err.problem.detail ?? 'Your role does not allow this.' };
    if (err.status === 429) return { status: 429, detail: 'Too many requests for now.', retryAfter: err.retryAfter ?? 1 };
    if (err.status === 401) {
      // The gateway refused the console's own token: keys out of step, never the member's doing.
      logger.error({ path: req.path, detail: err.problem.detail }, 'the gateway refused the console service token');
      return { status: 503, detail: UNAVAILABLE, retryAfter: 5 };
    }
    if (err.status >= 500) return { status: 503, detail: UNAVAILABLE, retryAfter: err.retryAfter ?? 1 };
    return { status: err.status, detail: err.problem.detail ?? 'The request was refused.' };
  }
  if (err instanceof AppError) {
    if (err.code === 'not_found') return { status: 404, detail: NOT_FOUND };
    const retryAfter = Number(err.extra.headers?.['Retry-After']);
    return { status: err.status, detail: err.detail, retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : err.status === 503 ? 1 : undefined };
  }
  const framework = err as { type?: string; status?: number };
  if (framework?.type === 'entity.too.large') return { status: 413, detail: 'What was sent is too large.' };
  if (typeof framework?.status === 'number' && framework.status >= 400 && framework.status < 500) return { status: framework.status, detail: 'The request could not be read.' };
  if (isDependencyOutage(err) || isRedisOutage(err)) {
    logger.warn({ err: (err as Error).message, path: req.path }, 'a store the console needs is unavailable');
    return { status: 503, detail: UNAVAILABLE, retryAfter: 1 };
  }
  logger.error({ err, path: req.path }, 'console request failed');
  return { status: 500, detail: 'Something went wrong on our side. Try again; if it keeps happening, tell your Preflight operator.' };
}

/**
 * The console's last middleware: errors become HTML pages (403, 404, 429 with Retry-After, 503
 * when the gateway or a store is away), never problem+json; a missing session sends the browser
 * to sign-in.
 */
export function consoleErrorPages(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof AppError && err.code === 'unauthorized') {
      toSignIn(req, res);
      return;
    }
    const shown = classify(err, logger, req);
    if (shown.retryAfter !== undefined) res.setHeader('Retry-After', String(shown.retryAfter));
    const session = localsOf(res).session;
    sendHtml(res, shown.status, render(<ProblemPage status={shown.status} detail={shown.detail} session={session} retryAfter={shown.retryAfter} />));
  };
}

/** A console path nothing answers: the 404 page. */
export function consoleNotFound(): (req: Request, res: Response) => void {
  return (_req, res) => {
    sendHtml(res, 404, render(<ProblemPage status={404} detail={NOT_FOUND} session={localsOf(res).session} />));
  };
}
