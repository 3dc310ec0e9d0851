import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { seedAccount, seedCustomers } from "../../bench/service/seed.ts";
import type { Database } from "../../src/store/database.ts";
import { type MigratedTestDatabase, openMigratedTestDatabase } from "../helpers/test-database.ts";

// The benchmark's seed settles the tables it filled and leaves the empty ones
// unanalyzed: a table recorded as empty is read with a sequential scan by a
// plan made then, and the service keeps that plan for as long as its
// connection lives (bench/service/seed.ts, settle).

const OPEN_TIMEOUT_MS = 180_000;
let opened: MigratedTestDatabase;
let database: Database;

beforeAll(async () => {
  opened = await openMigratedTestDatabase();
  database = opened.database;
  await seedAccount(database.db, new Date());
  await seedCustomers(database.db, 0, 200);
}, OPEN_TIMEOUT_MS);
afterAll(() => opened?.close());

async function reltuples(table: string): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select reltuples::float8 as n from pg_class where oid = ${table}::regclass`.execute(database.db);
  return Number(rows[0]?.n);
}

describe("the benchmark's seed", () => {
  test("analyzes the tables it filled", { timeout: OPEN_TIMEOUT_MS }, async () => {
    expect(await reltuples("customers")).toBe(200);
  });

  test("leaves a table it did not fill as never analyzed", { timeout: OPEN_TIMEOUT_MS }, async () => {
    expect(await reltuples("calls")).toBe(-1);
  });

  test("so a generic plan made now finds a call by its key through the index", {
    timeout: OPEN_TIMEOUT_MS,
  }, async () => {
    const plan = await database.db.connection().execute(async (connection) => {
      await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
      await sql`prepare call_by_key (text, text, text) as
        select call_end from calls where account_id = $1 and mode = $2 and call_id = $3`.execute(connection);
      try {
        const { rows } = await sql<{ "QUERY PLAN": string }>`explain execute call_by_key ('a', 'live', 'c')`.execute(
          connection,
        );
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      } finally {
        await sql`deallocate call_by_key`.execute(connection);
      }
    });
    expect(plan).toContain("calls_pkey");
    expect(plan).not.toContain("Seq Scan");
  });
});
