import { sql } from "kysely";
import type { BenchDatabase } from "./bench-database.ts";

// The blocks the statements sent to one database touched, from pg_stat_statements, on a server that loads it
// (shared_preload_libraries). Unlike pg_stat_database, which counts every session of the database, it leaves out
// what autovacuum's workers read: their work follows the tables' size and PostgreSQL's thresholds, not the calls.
// A statement's count includes the foreign-key checks and triggers it ran.

export interface StatementBlocks {
  /** Blocks touched so far by statement text (the first characters; statements that differ later are summed). */
  read(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

/** Undefined where the server does not load pg_stat_statements (it needs a restart to), or on the embedded engine. */
export async function openStatementBlocks(database: BenchDatabase): Promise<StatementBlocks | undefined> {
  if (database.kind !== "postgres") return undefined;
  const opened = await database.open();
  const { rows } = await sql<{ libs: string }>`select current_setting('shared_preload_libraries') as libs`.execute(
    opened.db,
  );
  if (!(rows[0]?.libs ?? "").includes("pg_stat_statements")) {
    await opened.close();
    return undefined;
  }
  // The view lives in the database that creates the extension; the counts are the server's, filtered by dbid.
  await sql`create extension if not exists pg_stat_statements`.execute(opened.db);
  return {
    async read() {
      const { rows: counts } = await sql<{ text: string; blocks: string }>`
        select left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as text,
               sum(shared_blks_hit + shared_blks_read + local_blks_hit + local_blks_read)::text as blocks
        from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database())
          and query not like '%pg\\_stat%'
        group by 1`.execute(opened.db);
      return new Map(counts.map((row) => [row.text, Number(row.blocks)]));
    },
    close: () => opened.close(),
  };
}
