import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { envToConfig } from "../../src/config.ts";
import { createDatabase, type Database } from "../../src/store/database.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// The service's sessions price a sequential scan as a last resort and keep one
// generic plan per prepared statement (src/database/plan-settings.ts), on
// PostgreSQL, behind a pooler (DATABASE_POOLER) and on the embedded database
// alike; the benchmark's A/B turns the second off.

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

async function planSettings(genericPlans?: boolean): Promise<{ mode?: string; seqscan?: string }> {
  const database = await createDatabase(envToConfig({ ...testDatabase.env, LOG_LEVEL: "silent" }), { genericPlans });
  opened.push(database);
  // With parameters, as every statement of a call is sent: behind a transaction-mode pooler the settings travel
  // with each such statement rather than with the session (src/database/transaction-pooler-client.ts).
  const { rows } = await sql<{ mode: string; seqscan: string }>`
    select current_setting(${"plan_cache_mode"}) as mode, current_setting(${"enable_seqscan"}) as seqscan`.execute(
    database.db,
  );
  return { mode: rows[0]?.mode, seqscan: rows[0]?.seqscan };
}

describe("the plan settings of the service's sessions", () => {
  test("keep one generic plan per prepared statement, with no sequential scan where an index can do", {
    timeout: OPEN_TIMEOUT_MS,
  }, async () => {
    expect(await planSettings()).toEqual({ mode: "force_generic_plan", seqscan: "off" });
  });

  test("leave the plan cache to choose when asked to, still with no sequential scan", {
    timeout: OPEN_TIMEOUT_MS,
  }, async () => {
    expect(await planSettings(false)).toEqual({ mode: "auto", seqscan: "off" });
  });
});
