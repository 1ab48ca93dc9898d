import type { ColumnType, Generated } from '@preflight/db';
import type { AuditActorKind, OperatorScope, Scope } from '@preflight/contract';

export interface OrganizationsTable {
  id: Generated<string>;
  name: string;
  created_at: ColumnType<Date, never, never>;
}

export interface ApiKeysTable {
  id: Generated<string>;
  org_id: string;
  name: string;
  scopes: Scope[];
  environment: 'live' | 'test';
  key_hash: string;
  prefix: string;
  last_four: string;
  created_at: ColumnType<Date, never, never>;
  last_used_at: ColumnType<Date | null, never, Date | null>;
  revoked_at: ColumnType<Date | null, never, Date | null>;
}

export type { OperatorScope } from '@preflight/contract';

export interface OperatorTokensTable {
  id: Generated<string>;
  name: string;
  scopes: OperatorScope[];
  token_hash: string;
  prefix: string;
  last_four: string;
  created_at: ColumnType<Date, never, never>;
  expires_at: Date | null;
  last_used_at: ColumnType<Date | null, never, Date | null>;
  revoked_at: ColumnType<Date | null, never, Date | null>;
}

/** Who made an admin write (id: the user, for a console member). */
export type { AuditActorKind } from '@preflight/contract';

export interface AuditLogTable {
  id: ColumnType<string, never, never>;
  at: ColumnType<Date, Date | undefined, never>;
  actor_kind: AuditActorKind;
  actor_id: string | null;
  actor_name: string | null;
  method: string;
  path: string;
  status: number;
  org_id: string | null;
  trace_id: string | null;
}

export interface IdentityDb {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  operator_tokens: OperatorTokensTable;
  audit_log: AuditLogTable;
}
