import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/store/database.ts";
import { startCountedServer } from "../helpers/counted-server.ts";
import { indexScans, scansBetween } from "../helpers/database-measures.ts";
import { createAccountWithKey, startAndEndCall } from "../helpers/rest-client.ts";
import type { TestServer } from "../helpers/test-server.ts";

// A call finds its customer, and the start its customer's open intents and live variables, through the hash
// indexes (docs/architecture.md, "Customers found by hash"): one bucket page at any size, where the primary keys'
// b-trees grow a level. The end updates the intents and variables a known caller has where it read them, by
// their ctid (docs/architecture.md, "Saved where they were read"). PostgreSQL has to choose them with the statistics a new deployment has: plans made on
// empty tables, analyzed so or never analyzed. Counted by the database (pg_stat_user_indexes) for the statements
// as the service sends them, on its one connection.

const CALLERS = 3;
const TABLES = ["customers", "intents", "variables", "customer_identifiers", "customer_dnis"];
const ROUNDS = 3;

describe.each([
  { statistics: "never analyzed", analyze: false },
  { statistics: "analyzed while empty", analyze: true },
])("a call's lookups by customer, with the statistics $statistics", ({ analyze }) => {
  let server: TestServer;
  let db: Db;
  let scans: Map<string, number>;

  beforeAll(async () => {
    ({ server, db } = await startCountedServer());
    if (analyze) await sql`analyze`.execute(db);
    const { apiKey } = await createAccountWithKey(server.url);
    // Each caller calls ROUNDS times: from the second call on, the start finds them and reads their context,
    // and the end saves the intent and variables they already have. Counted from the second call on.
    const end = {
      intent: "billing_question",
      intent_status: "open",
      variables: { preferred_language: "en", last_topic: "billing" },
    };
    const hints = (n: number) => ({ ani: `+1415557${1000 + n}`, dnis: "+18005550100" });
    const call = (n: number) => startAndEndCall(server.url, apiKey, hints(n), end);
    for (let n = 0; n < CALLERS; n++) await call(n);
    const before = await indexScans(db, TABLES);
    for (let round = 1; round < ROUNDS; round++) {
      for (let n = 0; n < CALLERS; n++) await call(n);
    }
    scans = scansBetween(before, await indexScans(db, TABLES));
  }, 120_000);
  afterAll(() => server?.stop());

  test("find the customer through the hash index on id, never through the primary key", () => {
    const detail = JSON.stringify(Object.fromEntries(scans));
    // At least the start's lookup and the end's lock, for every call of a known caller.
    expect(scans.get("customers_id_hash"), detail).toBeGreaterThanOrEqual(2 * CALLERS * (ROUNDS - 1));
    expect(scans.get("customers_pkey"), detail).toBe(0);
  });

  test("read a known caller's open intents and live variables through the hash indexes on customer_id", () => {
    const detail = JSON.stringify(Object.fromEntries(scans));
    expect(scans.get("intents_customer_id_hash"), detail).toBeGreaterThanOrEqual(CALLERS * (ROUNDS - 1));
    expect(scans.get("variables_customer_id_hash"), detail).toBeGreaterThanOrEqual(CALLERS * (ROUNDS - 1));
  });

  test("save a known caller's intents and variables where the end read them, never descending the primary keys", () => {
    // An insert … on conflict would check each name against the primary key first: one scan of it per name.
    const detail = JSON.stringify(Object.fromEntries(scans));
    expect(scans.get("intents_pkey"), detail).toBe(0);
    expect(scans.get("variables_pkey"), detail).toBe(0);
    expect(scans.get("variables_customer_id_hash"), detail).toBeGreaterThanOrEqual(2 * CALLERS * (ROUNDS - 1));
  });

  test("find a known caller's number and dialled number once per start, and leave the links they hold as they are", () => {
    // The start's lookup reads when the customer last called from the number and dialled it; a link seen within
    // the day is not looked up again to be written.
    const detail = JSON.stringify(Object.fromEntries(scans));
    expect(scans.get("customer_identifiers_pkey"), detail).toBe(CALLERS * (ROUNDS - 1));
    expect(scans.get("customer_dnis_pkey"), detail).toBe(CALLERS * (ROUNDS - 1));
  });
});
