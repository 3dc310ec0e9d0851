import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "../../src/store/engine/database.ts";
import { type MigratedTestDatabase, openMigratedTestDatabase } from "../helpers/test-database.ts";

// A plan made while a table was recorded as empty reads it with a sequential
// scan, and PostgreSQL makes it again only when the table's statistics change,
// which without autovacuum (or on the embedded database) never comes. The
// service's connections make their plans again after a while
// (src/store/engine/generic-plans.ts, PLAN_LIFETIME_MS): here one second.

const OPEN_TIMEOUT_MS = 180_000;
const PLAN_LIFETIME_MS = 1000;
let opened: MigratedTestDatabase;
let database: Database;

beforeAll(async () => {
  // One connection, so the plan read is the one the lookup used.
  opened = await openMigratedTestDatabase({ DB_POOL_SIZE: "1" }, { planLifetimeMs: PLAN_LIFETIME_MS });
  database = opened.database;
  await database.db.connection().execute((connection) => sql`vacuum analyze calls`.execute(connection));
}, OPEN_TIMEOUT_MS);
afterAll(() => opened?.close());

/** A call by its key, as the end finds it: a prepared statement with a generic plan. */
async function findCall(callId: string): Promise<void> {
  await sql`select call_end from calls where account_id = ${"acct_plan"} and mode = ${"live"} and call_id = ${callId}`.execute(
    database.db,
  );
}

/** The plan the session keeps for findCall's statement. */
async function planOfFindCall(): Promise<string> {
  const { rows } = await sql<{ name: string }>`
    select name from pg_prepared_statements where statement like '%from calls where account_id = $1%'`.execute(
    database.db,
  );
  expect(rows).toHaveLength(1);
  const explained = await sql<{
    "QUERY PLAN": string;
  }>`explain execute ${sql.id(rows[0].name)} ('a', 'live', 'c')`.execute(database.db);
  return explained.rows.map((row) => row["QUERY PLAN"]).join("\n");
}

describe("a connection's plans", () => {
  test("are made again after their lifetime, for the table as it has grown", { timeout: OPEN_TIMEOUT_MS }, async () => {
    await findCall("first");
    expect(await planOfFindCall()).toContain("Seq Scan on calls");

    await sql`
      insert into calls (account_id, mode, call_id, call_start)
      select 'acct_plan', 'live', 'call-' || i, now() from generate_series(1, 20000) as i`.execute(database.db);
    await new Promise((resolve) => setTimeout(resolve, PLAN_LIFETIME_MS * 1.5));

    await findCall("call-1");
    const plan = await planOfFindCall();
    expect(plan).toContain("calls_pkey");
    expect(plan).not.toContain("Seq Scan");
  });
});
