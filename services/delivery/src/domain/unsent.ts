/**
 * The log's errors of the two kinds of failed attempt that sent no request. Stats leave them
 * out of response times; the scheduler writes them.
 */
export const BREAKER_OPEN_ERROR = 'circuit breaker open: recent attempts to this endpoint timed out or could not connect; no request sent';

export const NOT_STARTED_PREFIX = 'not sent: ';

/** An attempt that could not start within its time of becoming due. */
export const notStartedError = (inFlight: number, timeoutMs: number): string =>
  `${NOT_STARTED_PREFIX}the endpoint's ${inFlight} connection slots were busy with unanswered requests for ${timeoutMs} ms`;
