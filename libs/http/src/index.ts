export { createApp, jsonBodies, JSON_MEDIA_TYPES, DEFAULT_BODY_LIMIT, type AppOptions, type ServiceApp, type ReadinessCheck } from './app.ts';
export { AppError, ERROR_KINDS, problemType, notFound, conflict, validationFailed, type ErrorCode, type FieldErrors } from './errors.ts';
export { problemBody, sendProblem, problemHandler, PROBLEM_CONTENT_TYPE, type ProblemBody } from './problem.ts';
export { sendJson } from './respond.ts';
export { parseBody, parseQuery, pathId, isUuid, fieldErrors } from './validate.ts';
export { callerOf, callerHeaders, orgScopeOf, requireAdmin, requireApiKey, CALLER_HEADERS, INTERNAL_HEADER_PREFIX, type Caller } from './caller.ts';
export { createRegistry, httpMetrics } from './metrics.ts';
export { traceMiddleware, parseTraceparent, outgoingTraceparent, newTrace, newSpanId } from './trace.ts';
export { serve, createAppServer, exitOnFatalErrors, type ServeOptions, type RunningServer } from './server.ts';
