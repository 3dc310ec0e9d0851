import { type Kysely, sql } from "kysely";

// Rows a call rewrites where they are: a customer's intents (each end that saves one) and what the contact figures
// keep per customer (each counted call). A rewrite is a HOT update (one page, no index entry) only when the page
// has room for the new version; a page filled by inserts has none, and the first rewrite of each of its rows went
// to another page with an entry in every index of the table, a descent of a primary key one level deeper at
// 100,000 customers than at 1,000. Pages are filled to 90 %, as variables' (0020) and customers' (0008) are. The
// fill factor applies to new pages.

const TABLES = ["intents", "contact_figures_callers", "contact_figures_issues"] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`alter table ${sql.id(table)} set (fillfactor = 90)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`alter table ${sql.id(table)} reset (fillfactor)`.execute(db);
}
