import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "../../src/store/database.ts";
import { type MigratedTestDatabase, openMigratedTestDatabase } from "../helpers/test-database.ts";

// An end that saves a variable the customer already holds rewrites its row.
// That is a HOT update (one page, no index entry) only when no index holds a
// column the save changes and the page has room for the new version: so the
// table's indexes hold only customer_id and name, which a save never changes
// (its primary key, and the hash index the start reads a customer's variables
// by, migration 0026), and its pages are filled to 90 % (migration 0020).
// `npm run bench:cost` counts the HOT updates of a real workload.

const OPEN_TIMEOUT_MS = 180_000;
let opened: MigratedTestDatabase;
let database: Database;

beforeAll(async () => {
  opened = await openMigratedTestDatabase();
  database = opened.database;
}, OPEN_TIMEOUT_MS);
afterAll(() => opened?.close());

describe("the variables table", () => {
  test("indexes only customer_id and name: its primary key and the hash index on customer_id", async () => {
    const { rows } = await sql<{ name: string; columns: string[] }>`
      select i.relname as name,
        array(select a.attname::text from unnest(x.indkey) with ordinality k(attnum, n)
          join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum order by k.n) as columns
      from pg_index x join pg_class i on i.oid = x.indexrelid
      where x.indrelid = 'variables'::regclass order by i.relname
    `.execute(database.db);
    expect(rows).toEqual([
      { name: "variables_customer_id_hash", columns: ["customer_id"] },
      { name: "variables_pkey", columns: ["customer_id", "name"] },
    ]);
  });

  test("leaves a tenth of each new page free for the rewrites", async () => {
    expect(await fillFactors(["variables"])).toEqual({ variables: ["fillfactor=90"] });
  });
});

describe("the other tables whose rows a call rewrites", () => {
  // Customers (each start's last_call_at), intents (each end's save), the contact figures' rows (each counted call).
  const TABLES = ["customers", "intents", "contact_figures_callers", "contact_figures_issues"];

  test("leave a tenth of each new page free for the rewrites", async () => {
    expect(await fillFactors(TABLES)).toEqual(Object.fromEntries(TABLES.map((table) => [table, ["fillfactor=90"]])));
  });
});

async function fillFactors(tables: readonly string[]): Promise<Record<string, string[] | null>> {
  const { rows } = await sql<{ table: string; options: string[] | null }>`
    select relname as table, reloptions as options from pg_class
    where relname = any(${[...tables]}::text[]) and relkind = 'r'
  `.execute(database.db);
  return Object.fromEntries(rows.map((row) => [row.table, row.options]));
}
