import { sql, type Kysely } from '@preflight/db';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per endpoint. The signing secret is never stored in clear: AES-256-GCM ciphertext,
  // its IV and tag, and the id of the key that sealed it (@preflight/secret-box).
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('url', 'text', (c) => c.notNull())
    // [] subscribes to every event.
    .addColumn('events', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('api', 'dashboard')`))
    .addColumn('is_enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0).check(sql`consecutive_failures >= 0`))
    .addColumn('disabled_at', 'timestamptz')
    .addColumn('secret_key_id', 'text', (c) => c.notNull())
    .addColumn('secret_iv', 'bytea', (c) => c.notNull())
    .addColumn('secret_ciphertext', 'bytea', (c) => c.notNull())
    .addColumn('secret_tag', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // The org's list, newest first; also serves the delivery service's endpoint lookup.
  await db.schema.createIndex('webhooks_org_created_idx').on('webhooks').columns(['org_id', 'created_at desc', 'id desc']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhooks').execute();
}
