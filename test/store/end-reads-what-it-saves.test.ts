import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/store/database.ts";
import { startCountedServer } from "../helpers/counted-server.ts";
import { indexScans, scansBetween } from "../helpers/database-measures.ts";
import { createAccountWithKey, startAndEndCall } from "../helpers/rest-client.ts";
import type { TestServer } from "../helpers/test-server.ts";

// An end reads a customer's intents and variables only to save the ones it names (src/store/calls/end-saves.ts):
// its reads of them are joined to the names the end saves, and a join with nothing on one side reads nothing on
// the other, so an end that names none leaves those tables alone. The start reads the caller's intents twice (the
// lookup's open-intent fact and the context it answers with) and the live variables once. Counted by the database
// (pg_stat_user_indexes) for the statements as the service sends them, on its one connection.

const ENDS = 4;
const TABLES = ["intents", "variables"];

describe("an end that names no intent and no variable", () => {
  let server: TestServer;
  let db: Db;
  let scans: Map<string, number>;

  beforeAll(async () => {
    ({ server, db } = await startCountedServer());
    const { apiKey } = await createAccountWithKey(server.url);
    const hints = { ani: "+14155571234", dnis: "+18005550100" };
    await startAndEndCall(server.url, apiKey, hints, { intent: "billing_question", variables: { plan: "gold" } });
    const before = await indexScans(db, TABLES);
    for (let n = 0; n < ENDS; n++) await startAndEndCall(server.url, apiKey, hints, {});
    scans = scansBetween(before, await indexScans(db, TABLES));
  }, 120_000);
  afterAll(() => server?.stop());

  test("reads the caller's intents and variables only at the start", () => {
    const detail = JSON.stringify(Object.fromEntries(scans));
    expect(scans.get("intents_customer_id_hash"), detail).toBe(2 * ENDS);
    expect(scans.get("variables_customer_id_hash"), detail).toBe(ENDS);
    expect(scans.get("intents_pkey"), detail).toBe(0);
    expect(scans.get("variables_pkey"), detail).toBe(0);
  });
});
