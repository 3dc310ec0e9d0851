import { type Kysely, sql } from "kysely";

/**
 * The service's background jobs held off for an hour (usage counts, events, the retention sweep, the contact
 * figures): a test counting the blocks its own statements touch (pg_stat_database and pg_statio_user_tables count
 * every session's) counts nothing else.
 */
export const NO_BACKGROUND_JOBS = Object.freeze({
  USAGE_FLUSH_MS: "3600000",
  EVENTS_DELIVERY: "off",
  SWEEP_INTERVAL_MS: "3600000",
  CONTACT_FIGURES_INTERVAL_MS: "3600000",
});

/** Pages a table takes on disk now, its indexes apart. */
export async function relationPages<S>(db: Kysely<S>, table: string): Promise<number> {
  const { rows } = await sql<{ pages: string }>`
    select (pg_relation_size(${table}::regclass) / current_setting('block_size')::int)::text as pages`.execute(db);
  return Number(rows[0]?.pages);
}

/**
 * Blocks of this database's own tables, their indexes and their TOAST read or found in shared buffers so far, by
 * every session (pg_statio_user_tables), once this session has reported its counts. The system catalogs are left
 * out: a connection reads them when it makes its plans, and again whenever PostgreSQL flushes its caches, as it
 * does when other databases' migrations outrun it. What a test of a statement's cost counts is what the statement
 * reads of the data; pg_stat_database's total (src/database/blocks-touched.ts) swung by a thousand blocks with
 * another database's migrations beside it.
 */
export async function readTableBlocksTouched<S>(db: Kysely<S>): Promise<number> {
  await sql`select pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<{ blocks: string }>`
    select coalesce(sum(coalesce(heap_blks_read, 0) + coalesce(heap_blks_hit, 0) + coalesce(idx_blks_read, 0)
      + coalesce(idx_blks_hit, 0) + coalesce(toast_blks_read, 0) + coalesce(toast_blks_hit, 0)
      + coalesce(tidx_blks_read, 0) + coalesce(tidx_blks_hit, 0)), 0)::text as blocks
    from pg_statio_user_tables`.execute(db);
  return Number(rows[0]?.blocks ?? 0);
}

/**
 * `measure` run twice (told which run it is), the run that touched fewer blocks kept. A job's first run does work
 * later runs need not (the contact figures' first batch inserts the figures' rows that later batches update): not
 * what a test of a statement's cost is about, and never cheaper than the run without it.
 */
export async function cheaperOfTwoRuns<T extends { readonly blocks: number }>(
  measure: (run: 0 | 1) => Promise<T>,
): Promise<T> {
  const first = await measure(0);
  const second = await measure(1);
  return second.blocks <= first.blocks ? second : first;
}

/** Scans of each index of the tables so far (pg_stat_user_indexes), once this session has reported its counts. */
export async function indexScans<S>(db: Kysely<S>, tables: readonly string[]): Promise<Map<string, number>> {
  await sql`select pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<{ index: string; scans: string }>`
    select indexrelname as index, idx_scan::text as scans from pg_stat_user_indexes
    where relname = any(${[...tables]}::text[])`.execute(db);
  return new Map(rows.map((row) => [row.index, Number(row.scans)]));
}

/** The scans of each index between two readings of indexScans. */
export function scansBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([index, count]) => [index, count - (before.get(index) ?? 0)]));
}
