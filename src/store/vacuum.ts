import { sql } from "kysely";
import type { Db } from "./database.ts";

// How the service vacuums tables itself, for what a vacuum must not wait for: PGlite runs no autovacuum at all,
// and a PostgreSQL server may run without it.

/**
 * A vacuum of `tables` (VACUUM FULL rewrites them into new files), then a checkpoint when asked. On one
 * connection, outside any transaction (VACUUM refuses one), without the statement timeout calls have: a vacuum
 * of large tables may take longer. Behind a transaction-mode pooler the three statements may reach three server
 * connections: the 0 left on one stays until a reset reaches it, and a call's statements carry their own timeout
 * (database/plan-settings.ts). Rare: an erasure's compaction.
 */
export function vacuumTables(
  db: Db,
  tables: readonly string[],
  options: { readonly full: boolean; readonly checkpoint: boolean },
): Promise<void> {
  return db.connection().execute(async (connection) => {
    await sql`set statement_timeout = 0`.execute(connection);
    try {
      await sql.raw(`vacuum ${options.full ? "full " : ""}${tables.join(", ")}`).execute(connection);
      if (options.checkpoint) await sql`checkpoint`.execute(connection);
    } finally {
      await sql`reset statement_timeout`.execute(connection);
    }
  });
}
