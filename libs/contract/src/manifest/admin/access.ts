import type { EndpointShapes, HttpMethod, MemberAccess, ServiceName } from '../endpoint.ts';

/** An admin endpoint for the operator alone, with its request and response shapes. */
export const operator = <O extends ServiceName, S extends EndpointShapes = object>(method: HttpMethod, path: string, owner: O, shapes?: S) => ({
  method,
  path,
  owner,
  auth: 'admin' as const,
  ...(shapes as S),
});

/** Also open to console members of the organisation: every member (`Member`) or Owners and Admins (`Admin`). */
export const admin = <O extends ServiceName, S extends EndpointShapes = object>(method: HttpMethod, path: string, owner: O, members: MemberAccess, shapes?: S) => ({
  method,
  path,
  owner,
  auth: 'admin' as const,
  members,
  ...(shapes as S),
});
