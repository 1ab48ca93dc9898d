import { sql, type Kysely } from 'kysely';

/** One value sealed again (libs/secret-box's `Resealed`, by shape): the row, what it held, what it gets. */
export interface ResealedColumns {
  id: string;
  was: { iv: Buffer };
  now: { keyId: string; iv: Buffer; ciphertext: Buffer; tag: Buffer };
}

/**
 * Writes values sealed again into `table`'s `<prefix>_key_id`, `_iv`, `_ciphertext` and `_tag`
 * columns in one statement, each row only where it still holds the IV that was read (random per
 * sealing, so compare-and-set: a sealing done meanwhile wins). Answers how many rows it wrote.
 */
export async function writeSealedColumns(db: Kysely<any>, table: string, prefix: string, changes: ResealedColumns[]): Promise<number> {
  if (changes.length === 0) return 0;
  const values = sql.join(changes.map((c) => sql`(${c.id}::uuid, ${c.was.iv}::bytea, ${c.now.keyId}::text, ${c.now.iv}::bytea, ${c.now.ciphertext}::bytea, ${c.now.tag}::bytea)`));
  const result = await sql`
    update ${sql.table(table)} t
       set ${sql.raw(`${prefix}_key_id`)} = v.key_id, ${sql.raw(`${prefix}_iv`)} = v.iv,
           ${sql.raw(`${prefix}_ciphertext`)} = v.ciphertext, ${sql.raw(`${prefix}_tag`)} = v.tag
      from (values ${values}) as v (id, was_iv, key_id, iv, ciphertext, tag)
     where t.id = v.id and t.${sql.raw(`${prefix}_iv`)} = v.was_iv`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
