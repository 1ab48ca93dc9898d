import { sql, type Kysely } from '@preflight/db';

/**
 * Operator tokens (admin-api-v1.md, "Operator tokens and the audit log"), stored like API keys:
 * the SHA-256 of the token, never the token; and the audit log of admin writes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('operator_tokens')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scopes', sql`text[]`, (c) => c.notNull().check(sql`scopes <@ array['admin:read', 'admin:write']::text[] and cardinality(scopes) > 0`))
    // SHA-256 of the full token, hex. The only way a presented token is found.
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('last_four', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    // When the answer was sent (the gateway sets it), in milliseconds as the API shows it, so
    // `before=<an entry's at>` compares with what was shown.
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`date_trunc('milliseconds', now())`))
    .addColumn('actor_kind', 'text', (c) => c.notNull().check(sql`actor_kind in ('bootstrap', 'operator-token')`))
    // No foreign key: an entry outlives nothing it names (tokens are revoked, never deleted, but
    // the log must not depend on that), and a write here must never fail on one.
    .addColumn('actor_id', 'uuid')
    .addColumn('actor_name', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('org_id', 'uuid')
    .addColumn('trace_id', 'text')
    .execute();

  // Newest first, paged by `before`; the retention sweep deletes by the same column.
  await db.schema.createIndex('audit_log_at_id_idx').on('audit_log').expression(sql`at desc, id desc`).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
  await db.schema.dropTable('operator_tokens').execute();
}
