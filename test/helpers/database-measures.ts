import { type Kysely, sql } from "kysely";

/**
 * The service's background jobs held off for an hour (usage counts, events, the retention sweep, the contact
 * figures): a test counting the blocks its own statements touch in pg_stat_database, which counts every session's,
 * counts nothing else.
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
 * `measure` run twice (told which run it is), the run that touched fewer blocks kept. A run that makes its plans
 * reads the catalog besides: the first on a connection, or any after PostgreSQL has flushed the connection's
 * caches, as it does when other databases' migrations outrun it. Not what a test of a statement's cost is about,
 * and never cheaper than the run without it.
 */
export async function cheaperOfTwoRuns<T extends { readonly blocks: number }>(
  measure: (run: 0 | 1) => Promise<T>,
): Promise<T> {
  const first = await measure(0);
  const second = await measure(1);
  return second.blocks <= first.blocks ? second : first;
}
