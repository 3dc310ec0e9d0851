import { type Kysely, sql } from "kysely";

/**
 * Blocks of the database read or found in shared buffers so far, by every
 * session (pg_stat_database's blks_read + blks_hit): what a call costs the
 * database, as a count, stable on a busy machine where times are not. A
 * session reports its own counts when it goes idle, at most once a second, or
 * at once when asked (pg_stat_force_next_flush), which the embedded database's
 * one session needs: its count is read back by a second statement.
 */
export async function readBlocksTouched<S>(db: Kysely<S>): Promise<number> {
  await sql`select pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<{ blocks: string }>`
    select (blks_hit + blks_read)::text as blocks from pg_stat_database where datname = current_database()`.execute(db);
  return Number(rows[0]?.blocks ?? 0);
}
