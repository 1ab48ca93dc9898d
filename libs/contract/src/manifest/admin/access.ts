import type { HttpMethod, MemberAccess, ServiceName } from '../endpoint.ts';

/** An admin endpoint for the operator alone. */
export const operator = <O extends ServiceName>(method: HttpMethod, path: string, owner: O) => ({ method, path, owner, auth: 'admin' as const });

/** Also open to console members of the organisation: every member (`Member`) or Owners and Admins (`Admin`). */
export const admin = <O extends ServiceName>(method: HttpMethod, path: string, owner: O, members: MemberAccess) => ({ method, path, owner, auth: 'admin' as const, members });
