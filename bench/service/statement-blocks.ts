import { sql } from "kysely";
import type { BenchDatabase } from "./bench-database.ts";

// The blocks the statements sent to one database touched, from pg_stat_statements, on a server that loads it
// (shared_preload_libraries). Unlike pg_stat_database, which counts every session of the database, it leaves out
// what autovacuum's workers read: their work follows the tables' size and PostgreSQL's thresholds, not the calls.
// A statement's count includes the foreign-key checks and triggers it ran.

export interface StatementCount {
  readonly text: string;
  readonly blocks: number;
  readonly calls: number;
}

export interface StatementBlocks {
  /** Every statement's count so far, by pg_stat_statements' queryid; the benchmark's own reads left out. */
  read(): Promise<Map<string, StatementCount>>;
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
      const { rows: counts } = await sql<{ id: string; text: string; blocks: string; calls: string }>`
        select queryid::text as id, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as text,
               (shared_blks_hit + shared_blks_read + local_blks_hit + local_blks_read)::text as blocks,
               calls::text as calls
        from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database())
          and query not like '%pg\\_stat%' and query not like '%pg\\_statio%'`.execute(opened.db);
      return new Map(
        counts.map((row) => [row.id, { text: row.text, blocks: Number(row.blocks), calls: Number(row.calls) }]),
      );
    },
    close: () => opened.close(),
  };
}

/** Blocks touched between two reads, in all and by statement text (most first), each divided by `calls`. */
export function statementBlocksPerCall(
  before: Map<string, StatementCount>,
  after: Map<string, StatementCount>,
  calls: number,
): { total: number; byStatement: [string, number][] } {
  // Statements that differ past their first characters (an end with or without variables) are summed as one.
  const byText = new Map<string, number>();
  for (const [id, count] of after) {
    const blocks = (count.blocks - (before.get(id)?.blocks ?? 0)) / calls;
    byText.set(count.text, (byText.get(count.text) ?? 0) + blocks);
  }
  const byStatement = [...byText].sort((a, b) => b[1] - a[1]);
  return { total: byStatement.reduce((sum, [, blocks]) => sum + blocks, 0), byStatement };
}
