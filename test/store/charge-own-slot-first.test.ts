import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TRANSPORTS, uniqueCallId } from "../helpers/call-client.ts";
import { type CountedCalls, startCountedCalls } from "../helpers/counted-server.ts";
import { indexScans, scansBetween } from "../helpers/database-measures.ts";

// A call's start and end each take their credit from one random slot, and their statements hold no second look
// at the account's other slots while that slot has credit: PostgreSQL sets such a part up on every execution, and
// its update of quota_slots ran an index scan on every call, with a null key when there was no other slot to take
// from. Only a statement that found its slot empty runs again with the second look (src/calls/call-write.ts).
// Counted by the database's own index scan counts. PostgreSQL 15 counts a scan whose key is null, so there this
// fails with the second look in every statement (4 scans a call); the embedded engine (PostgreSQL 17) does not
// count such a scan, so there the count only checks that no statement scans the slots twice with a key.

const SLOT_INDEX = "quota_slots_pkey";

describe.each(TRANSPORTS)("the credit slots a call reads over %s", (via) => {
  let counted: CountedCalls;

  beforeAll(async () => {
    counted = await startCountedCalls(via);
  }, 120_000);
  afterAll(() => counted?.close());

  async function startAndEnd(): Promise<void> {
    const callId = uniqueCallId();
    const started = await counted.calls.start({ call_id: callId, identity_hints: { ani: "+14155571234" } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const ended = await counted.calls.end({ call_id: callId, customer_ref: started.body.customer_ref, summary: "ok" });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
  }

  /** The scans of the slots' index during a start and its end. */
  async function slotScansOfOneCall(): Promise<number> {
    const before = await indexScans(counted.db, ["quota_slots"]);
    await startAndEnd();
    return scansBetween(before, await indexScans(counted.db, ["quota_slots"])).get(SLOT_INDEX) ?? 0;
  }

  test("with credit in every slot, a start and an end scan the slots' index once each", async () => {
    // The quota guard reads the account's credits again once its count is half a second old (quota-guard.ts),
    // which adds a scan to a call now and then: the fewest of five calls is the calls' own.
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) counts.push(await slotScansOfOneCall());
    expect(Math.min(...counts)).toBe(2);
  });

  test("with every slot but one empty, the calls still take their credits, from that slot", async () => {
    // Slot 0 keeps the credits; a start or an end keyed to another slot is undone, runs again and finds it.
    await sql`update quota_slots set remaining = case when slot = 0 then 4 else 0 end,
      period = to_char(now() at time zone 'utc', 'YYYY-MM') where account_id = ${counted.accountId}`.execute(
      counted.db,
    );
    for (let i = 0; i < 2; i++) await startAndEnd();
    const { rows } = await sql<{ left: number }>`
      select sum(remaining)::int as left from quota_slots where account_id = ${counted.accountId}`.execute(counted.db);
    expect(rows[0]?.left).toBe(0);
  });
});
