import type { ColumnType, Generated } from '@preflight/db';
import type { Scope } from '@preflight/contract';

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

export interface IdentityDb {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
}
