import type { ColumnType } from '@preflight/db';
import type { MemberRole } from '@preflight/http';

/** Table types of the console schema (migrations/0001_init.ts). */
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  created_at: DefaultedTimestamp;
  last_sign_in_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface MembershipsTable {
  user_id: string;
  org_id: string;
  role: MemberRole;
  created_at: DefaultedTimestamp;
}

export interface InvitationsTable {
  id: string;
  org_id: string;
  email: string;
  role: MemberRole;
  token_hash: string;
  invited_by: string | null;
  created_at: DefaultedTimestamp;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  accepted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface OrgNamesTable {
  org_id: string;
  name: string;
}

export interface OidcIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  created_at: DefaultedTimestamp;
}

export interface ConsoleDatabase {
  users: UsersTable;
  memberships: MembershipsTable;
  invitations: InvitationsTable;
  org_names: OrgNamesTable;
  oidc_identities: OidcIdentitiesTable;
}
