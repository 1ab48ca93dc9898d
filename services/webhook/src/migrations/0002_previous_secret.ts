import type { Kysely } from '@preflight/db';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The secret a rotation replaced, sealed like the current one, kept until it expires so the
  // delivery service can sign with both during the grace period (README, "Secret rotation").
  // Nullable: endpoints never rotated (and rotations without grace) have none.
  await db.schema
    .alterTable('webhooks')
    .addColumn('previous_secret_key_id', 'text')
    .addColumn('previous_secret_iv', 'bytea')
    .addColumn('previous_secret_ciphertext', 'bytea')
    .addColumn('previous_secret_tag', 'bytea')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    .dropColumn('previous_secret_key_id')
    .dropColumn('previous_secret_iv')
    .dropColumn('previous_secret_ciphertext')
    .dropColumn('previous_secret_tag')
    .dropColumn('previous_secret_expires_at')
    .execute();
}
