import { type Kysely, sql } from "kysely";

// Where a value is still stored: every column of every table of the schema,
// read as text. Erasure's tests and forget-me's search the whole database
// with it, so a column added later is searched too. Each table is read once
// as whole rows (a row's text holds every column's); only a table holding a
// needle is read again column by column, to name the columns. (A row's text
// doubles quotes and backslashes: needles here are numbers, ids and words.)

/** The tables and columns of the schema that hold one of `needles` (as text), as "table.column". */
export async function columnsHolding(db: Kysely<any>, needles: readonly string[]): Promise<string[]> {
  const { rows: columns } = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
    order by c.table_name, c.ordinal_position
  `.execute(db);
  const found: string[] = [];
  for (const table of new Set(columns.map((c) => c.table_name))) {
    const { rows: hits } = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.table(table)} as r
      where exists (select 1 from unnest(${needles}::text[]) needle where position(needle in r::text) > 0)
    `.execute(db);
    if ((hits[0]?.n ?? 0) === 0) continue;
    for (const { column_name } of columns.filter((c) => c.table_name === table)) {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from ${sql.table(table)}
        where exists (select 1 from unnest(${needles}::text[]) needle
          where position(needle in ${sql.ref(column_name)}::text) > 0)
      `.execute(db);
      if ((rows[0]?.n ?? 0) > 0) found.push(`${table}.${column_name}`);
    }
  }
  return found;
}
