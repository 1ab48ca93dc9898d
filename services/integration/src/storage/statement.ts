import { sql } from '@preflight/db';

/** A data-modifying statement built by one table's module, run as a part of another (storage/try-results.ts). */
export type Statement = ReturnType<typeof sql.raw>;
