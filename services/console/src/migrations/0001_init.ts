import { sql, type Kysely } from '@preflight/db';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A person who can sign in to the console. The e-mail is stored lower-cased (compared as
  // such); the password hash is argon2id in PHC form, null for someone who signs in only by SSO.
  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique().check(sql`email = lower(email)`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_sign_in_at', 'timestamptz')
    .execute();

  // A user's role in one organisation (organisations live in the gateway's identity schema).
  await db.schema
    .createTable('memberships')
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('Owner', 'Admin', 'Member')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('memberships_pkey', ['user_id', 'org_id'])
    .execute();
  await db.schema.createIndex('memberships_org_idx').on('memberships').columns(['org_id', 'created_at']).execute();

  // A one-time link to join an organisation: only the SHA-256 of its token is kept.
  // invited_by is the inviting user, null when the operator invited.
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull().check(sql`email = lower(email)`))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('Owner', 'Admin', 'Member')`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('invitations_org_idx').on('invitations').columns(['org_id', 'created_at desc']).execute();
  await db.schema.createIndex('invitations_email_idx').on('invitations').column('email').execute();

  // Organisations live in the gateway's identity schema; the console keeps the name it was given
  // with an organisation's first invitation (organisations are never renamed) for its pages.
  await db.schema
    .createTable('org_names')
    .addColumn('org_id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();

  // Who an identity provider's subject is: linked at the first single sign-on of a user.
  await db.schema
    .createTable('oidc_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('oidc_identities_pkey', ['issuer', 'subject'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['oidc_identities', 'org_names', 'invitations', 'memberships', 'users']) await db.schema.dropTable(table).execute();
}
