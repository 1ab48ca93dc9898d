import { ERROR_KINDS, type ErrorCode } from '@preflight/contract';

export { ERROR_KINDS, problemType, type ErrorCode } from '@preflight/contract';

export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: { errors?: FieldErrors; headers?: Record<string, string>; [key: string]: unknown } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.status = ERROR_KINDS[code].status;
    this.title = ERROR_KINDS[code].title;
  }
}

export const notFound = (what: string, id: string) => new AppError('not_found', `No ${what} with id '${id}' was found.`);
export const conflict = (detail: string, extra: Record<string, unknown> = {}) => new AppError('conflict', detail, extra);
export const validationFailed = (errors: FieldErrors, detail = 'One or more fields are invalid.') =>
  new AppError('validation', detail, { errors });
