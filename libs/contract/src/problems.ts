/**
 * The closed set of errors any Preflight service answers with. Each code maps to exactly one
 * HTTP status and title here, so a status can only change in one place and every problem body
 * of a kind reads the same whichever service produced it.
 */
export type ErrorCode =
  | 'bad_request'
  | 'malformed_json'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation'
  | 'rate_limited'
  | 'internal'
  | 'upstream_unavailable'
  | 'dependency_unavailable';

interface ErrorKind {
  status: number;
  title: string;
}

export const ERROR_KINDS = {
  bad_request: { status: 400, title: 'Bad request.' },
  malformed_json: { status: 400, title: 'Malformed JSON.' },
  unauthorized: { status: 401, title: 'Unauthorized.' },
  forbidden: { status: 403, title: 'Access denied.' },
  not_found: { status: 404, title: 'Not found.' },
  method_not_allowed: { status: 405, title: 'Method not allowed.' },
  request_timeout: { status: 408, title: 'Request timeout.' },
  conflict: { status: 409, title: 'Conflict.' },
  payload_too_large: { status: 413, title: 'Payload too large.' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type.' },
  validation: { status: 422, title: 'Validation failed.' },
  rate_limited: { status: 429, title: 'Too many requests.' },
  internal: { status: 500, title: 'Internal server error.' },
  upstream_unavailable: { status: 503, title: 'Service unavailable.' },
  dependency_unavailable: { status: 503, title: 'Service unavailable.' },
} as const satisfies Record<ErrorCode, ErrorKind>;

/** Problem `type` URIs: each code is described in docs/api.md (Errors). */
export function problemType(code: ErrorCode): string {
  return `https://preflight.dev/problems/${code.replaceAll('_', '-')}`;
}
