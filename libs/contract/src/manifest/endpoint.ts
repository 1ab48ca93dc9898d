import type { z } from 'zod';
import type { Scope } from '../enums.ts';
import type { PARAMETERS, PROBLEM_RESPONSES } from '../openapi/http.ts';
import type { JsonSchema } from '../openapi/schemas.ts';

/**
 * The shape of one entry of the route manifest (manifest/index.ts): what every consumer of an
 * endpoint needs to know, stated once. The gateway builds its routing table from it, the OpenAPI
 * document its operations, the internal-contract snapshots their routes; tests check each
 * service serves exactly the entries it owns.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who answers: the gateway itself or the service it forwards to. */
export type ServiceName = 'gateway' | 'campaign' | 'issue' | 'webhook' | 'delivery' | 'integration' | 'console';

/**
 * Which console members may call an admin endpoint for their own organisation: `Member` (every
 * member), `Admin` (Owners and Admins: keys, webhooks, integrations, members, campaign set-up).
 * An admin endpoint without it is the operator's alone.
 */
export type MemberAccess = 'Member' | 'Admin';

/**
 * Who may call: an API key carrying `scope` (`any`: any valid key), the operator (`admin`, and
 * console members as `members` says),
 * anyone (`none`; with `limitBy`, rate-limited per value of that UUID path parameter), or
 * other services over `/internal/v1` (`internal`, never routed by the gateway).
 */
export type EndpointAccess =
  | { auth: 'api-key'; scope: Scope | 'any' }
  | { auth: 'admin'; members?: MemberAccess }
  | { auth: 'none'; limitBy?: string }
  | { auth: 'internal'; callers: readonly ServiceName[] };

export type ProblemName = keyof typeof PROBLEM_RESPONSES;
export type ParameterName = keyof typeof PARAMETERS;

/** Prose and HTTP details of a public operation in the OpenAPI document. */
export interface OperationDoc {
  tag: string;
  summary: string;
  description: string;
  /** Components of `PARAMETERS`, path parameters first (POSTs get Idempotency-Key on their own). */
  parameters?: ParameterName[];
  /** Problems beyond those every authenticated call can meet (401, 403, 429, 500, 503; 409 on POSTs). */
  problems: ProblemName[];
  /** What the success response's description says. */
  returns: string;
  /** Replaces the success body's schema where zod's would say more than the contract (the document itself). */
  responseSchema?: JsonSchema;
  /** Success headers of an unauthenticated operation (authenticated ones carry the rate-limit headers). */
  responseHeaders?: Record<string, JsonSchema>;
}

/**
 * The request and success response of an entry (admin shapes: manifest/admin/<service>-shapes.ts
 * and console-shapes.ts). Handlers served by libs/service-kit `route()` send exactly `body`.
 */
export interface EndpointShapes {
  request?: { body?: z.ZodType; query?: z.ZodType };
  response?: { status: number; body?: z.ZodType };
}

export type Endpoint = { method: HttpMethod; path: string; owner: ServiceName; doc?: OperationDoc } & EndpointAccess & EndpointShapes;

/** `/a/:id/b` → `/a/{id}/b`, the OpenAPI template of an express-style path. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z]\w*)/g, '{$1}');
