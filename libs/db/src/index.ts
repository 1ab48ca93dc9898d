export { createDatabase, type Database, type DatabaseOptions } from './database.ts';
export { Batcher, KeyedBatcher } from './batcher.ts';
export { listenFor, type ListenOptions } from './listen.ts';
export { migrateToLatest, DDL_LOCK_KEY, type MigrationSet } from './migrate.ts';
export { isUniqueViolation, isForeignKeyViolation } from './pg-errors.ts';
export { sql, type Kysely, type Transaction, type Generated, type Selectable, type Insertable, type Updateable, type ColumnType } from 'kysely';
export { writeSealedColumns, type ResealedColumns } from './sealed-columns.ts';
