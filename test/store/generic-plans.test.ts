import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { envToConfig } from "../../src/config.ts";
import { createDatabase, type Database } from "../../src/store/engine/database.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// The service's sessions keep one generic plan per prepared statement
// (src/store/engine/generic-plans.ts), on PostgreSQL and on the embedded
// database alike; the benchmark's A/B turns it off.

const OPEN_TIMEOUT_MS = 180_000;
let testDatabase: TestDatabase;
const opened: Database[] = [];

beforeAll(async () => {
  testDatabase = await createTestDatabase();
}, OPEN_TIMEOUT_MS);
afterAll(async () => {
  for (const database of opened) await database.close();
  await testDatabase?.drop();
});

async function planCacheMode(genericPlans?: boolean): Promise<string | undefined> {
  const database = await createDatabase(envToConfig({ ...testDatabase.env, LOG_LEVEL: "silent" }), { genericPlans });
  opened.push(database);
  const { rows } = await sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.execute(database.db);
  return rows[0]?.mode;
}

describe("the plan cache of the service's sessions", () => {
  test("keeps one generic plan per prepared statement", { timeout: OPEN_TIMEOUT_MS }, async () => {
    expect(await planCacheMode()).toBe("force_generic_plan");
  });

  test("is left to choose when asked to", { timeout: OPEN_TIMEOUT_MS }, async () => {
    expect(await planCacheMode(false)).toBe("auto");
  });
});
