import { sql } from "kysely";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TIERS } from "../../src/domain/tiers.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// One list of tiers: the database's table is the service's list, and an
// account cannot be given a tier outside it, whoever writes the row.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

test("the tiers table holds exactly the service's tiers", async () => {
  const { rows } = await sql<{ name: string }>`select name from tiers order by name`.execute(
    server.context.database.db,
  );
  expect(rows.map((row) => row.name)).toEqual([...TIERS].sort());
});

test("an account row with an unknown tier is refused by the database", async () => {
  const { db } = server.context.database;
  const row = {
    id: "acct_tiertest",
    billing_account_id: "ba_tiertest",
    name: "x",
    tier: "platinum",
    created_at: new Date(),
  };
  await expect(db.insertInto("accounts").values(row).execute()).rejects.toThrow(/foreign key/);
  await db
    .insertInto("accounts")
    .values({ ...row, tier: "growth" })
    .execute();
  await expect(db.updateTable("accounts").set({ tier: "gold" }).where("id", "=", row.id).execute()).rejects.toThrow(
    /foreign key/,
  );
});
