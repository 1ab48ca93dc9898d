import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from '@preflight/log';
import { currentTrace } from '@preflight/log';
import { isDependencyOutage } from './dependency-errors.ts';
import { AppError, ERROR_KINDS, problemType, type ErrorCode } from './errors.ts';
import { answerBeforeBody } from './refused-body.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export interface ProblemBody {
  type: string | null;
  title: string | null;
  status: number | null;
  detail: string | null;
  instance: string | null;
  traceId: string | null;
  errors?: Record<string, string[]>;
  [key: string]: unknown;
}

export function problemBody(err: AppError, instance: string | null): ProblemBody {
  const { headers: _headers, errors, ...extra } = err.extra;
  return {
    type: problemType(err.code),
    title: err.title,
    status: err.status,
    detail: err.detail,
    instance,
    traceId: currentTrace()?.traceId ?? null,
    ...extra,
    ...(errors ? { errors } : {}),
  };
}

/** A 503 without a more precise hint: retrying after a second is safe and soon enough. */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

export function sendProblem(req: Request, res: Response, err: AppError): void {
  for (const [name, value] of Object.entries(err.extra.headers ?? {})) res.setHeader(name, value);
  // Every 503 tells the client when a retry makes sense (docs/reliability.md).
  if (err.status === 503 && !res.hasHeader('Retry-After')) res.setHeader('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS));
  if (!req.complete) answerBeforeBody(req, res, err.status);
  res.status(err.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problemBody(err, req.originalUrl.split('?')[0] ?? null)));
}

/** body-parser and friends signal with `type`/`status`; map them into our closed set. */
function fromFrameworkError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { type?: string; status?: number; limit?: number };
  switch (e.type) {
    case 'entity.parse.failed':
      return new AppError('malformed_json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new AppError('payload_too_large', `The request body exceeds the limit of ${e.limit ?? 'the allowed'} bytes.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'The request body uses an unsupported character encoding.');
    case 'request.aborted':
      return new AppError('bad_request', 'The request was aborted by the client.');
    default:
      if (isDependencyOutage(err)) return new AppError('dependency_unavailable', 'A store this request needs is unavailable just now; retry shortly.');
      return undefined;
  }
}

const CODES_BY_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERROR_KINDS).map(([code, kind]) => [kind.status, code as ErrorCode]),
);

/** Last middleware of every app: anything thrown becomes problem+json, never a stack trace. */
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let appError = fromFrameworkError(err);
    if (!appError) {
      const status = typeof (err as { status?: unknown })?.status === 'number' ? (err as { status: number }).status : 500;
      const code = status >= 400 && status < 500 ? CODES_BY_STATUS.get(status) : undefined;
      appError = code ? new AppError(code, ERROR_KINDS[code].title) : new AppError('internal', 'An unexpected error occurred. Quote the traceId to support.');
    }
    if (appError.status >= 500) logger.error({ err }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(req, res, appError);
  };
}
