import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QUOTA_SLOTS } from "../../src/domain/quota-slots.ts";
import { quotaPeriodOf } from "../../src/store/billing/charge.ts";
import { listUsageDays } from "../../src/store/billing/usage-repository.ts";
import { quotaOf, setQuota } from "../helpers/admin-client.ts";
import { type CallClient, countStatuses, createCallClient, startBody, TRANSPORTS } from "../helpers/call-client.ts";
import { placeCredits, slotsOf } from "../helpers/quota-slots.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// The monthly quota is spread over credit slots (docs/limits.md): these prove
// it stays exact where the slots matter, near zero, when one call's slot is
// emptied under it, and when the operator sets the count.

let server: TestServer;
let calls: CallClient;

beforeAll(async () => {
  // 40 starts at once on a busy machine can outlast the 1 s start budget (503, nothing saved); what is proved
  // here is which answers they get once they run.
  server = await startTestServer({ env: { START_BUDGET_MS: "30000" } });
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  await server.stop();
});

const db = () => server.context.database.db;
const thisPeriod = () => quotaPeriodOf(server.context.clock.now());

/** 40 starts at once, alternating REST and gRPC. */
function startsAtOnce(apiKey: string, count = 40) {
  return Promise.all(Array.from({ length: count }, (_, i) => calls.start(TRANSPORTS[i % 2], apiKey, startBody())));
}

describe("an account's credits are its slots", () => {
  test(`a new account has ${QUOTA_SLOTS} slots sharing its credits, none more than one apart`, async () => {
    const { accountId } = await createAccountWithKey(server.url, { tier: "growth", quota: 100 });
    const slots = await slotsOf(db(), accountId);
    expect(slots).toHaveLength(QUOTA_SLOTS);
    const counts = slots.map((slot) => slot.remaining);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(100);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    expect(new Set(slots.map((slot) => slot.period))).toEqual(new Set([thisPeriod()]));
  });

  test("an account with fewer credits than slots has them all: each is spent, then 402", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url, { tier: "growth", quota: 3 });
    expect(await quotaOf(server.url, accountId)).toBe(3);
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await calls.start(TRANSPORTS[i % 2], apiKey, startBody()));
    expect(outcomes.map((o) => o.status)).toEqual([200, 200, 200, 402]);
  });
});

describe("near zero the quota is exact whichever slots hold the credits", () => {
  test("7 credits left in 2 of the slots: 40 simultaneous starts give exactly 7 × 200, the rest the spec's 402", async () => {
    const { accountId, billingAccountId, apiKey } = await createAccountWithKey(server.url, { tier: "growth" });
    await placeCredits(db(), accountId, thisPeriod(), { 3: 4, 11: 3 });
    expect(await quotaOf(server.url, accountId)).toBe(7);

    const outcomes = await startsAtOnce(apiKey);
    expect(countStatuses(outcomes)).toEqual({ 200: 7, 402: 33 });
    for (const refused of outcomes.filter((o) => o.status === 402)) {
      expect(refused.headers["x-quota-remaining"]).toBe("0");
      if (refused.grpcError === undefined) {
        expect(refused.body).toEqual({
          error: "Payment Required",
          message: expect.any(String),
          quota_remaining: 0,
          billing_account_id: billingAccountId,
        });
      }
    }
    expect(await quotaOf(server.url, accountId)).toBe(0);
    expect((await slotsOf(db(), accountId)).every((slot) => slot.remaining === 0)).toBe(true);
    // Every refusal counted once in the account's usage: those the quota guard answered before the call, and those
    // whose statement found the credits gone, which the method answered.
    await server.context.meter.flush();
    const days = await listUsageDays(db(), accountId, "2000-01-01");
    expect(days.reduce((sum, day) => sum + day.refusedQuota, 0)).toBe(33);
    expect(days.reduce((sum, day) => sum + day.billed, 0)).toBe(7);
  });

  test("the last credit is found in whichever slot holds it: a single start gets 200, for every slot", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url, { tier: "growth" });
    for (let slot = 0; slot < QUOTA_SLOTS; slot++) {
      await placeCredits(db(), accountId, thisPeriod(), { [slot]: 1 });
      const started = await calls.start(TRANSPORTS[slot % 2], apiKey, startBody());
      expect(started.status).toBe(200);
      expect(started.headers["x-quota-remaining"]).toBe("0");
      expect((await calls.start("rest", apiKey, startBody())).status).toBe(402);
    }
  });

  // On PostgreSQL another session empties one of two slots while the start waits for it: a start that chose
  // that slot must try again and take the credit in the other (it chooses at random, so the round is repeated).
  // The embedded database runs one statement at a time, so there the start only finds the other slot.
  test("a start whose slot is emptied while it waits takes the credit left in another slot: 200, not 402", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url, { tier: "growth" });
    const { database } = server.config;
    for (let round = 0; round < 6; round++) {
      await placeCredits(db(), accountId, thisPeriod(), { 2: 1, 13: 1 });
      if (database.kind !== "postgres") {
        await placeCredits(db(), accountId, thisPeriod(), { 2: 1 });
        expect((await calls.start("rest", apiKey, startBody())).status).toBe(200);
        continue;
      }
      const other = new pg.Client({ connectionString: database.url });
      await other.connect();
      try {
        await other.query("begin");
        // Both slots locked, so the start waits whichever it chose; slot 13 is emptied when the lock goes.
        await other.query("select 1 from quota_slots where account_id = $1 and slot in (2, 13) for update", [
          accountId,
        ]);
        await other.query("update quota_slots set remaining = 0 where account_id = $1 and slot = 13", [accountId]);
        const started = calls.start(TRANSPORTS[round % 2], apiKey, startBody());
        await lockWaiterSeen(database.url);
        await other.query("commit");
        expect((await started).status).toBe(200);
      } finally {
        await other.end();
      }
      expect(await quotaOf(server.url, accountId)).toBe(0);
    }
  });
});

/** Resolves once a statement waits for a row lock on the database: the start, on its slot. */
async function lockWaiterSeen(url: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  try {
    for (;;) {
      const { rows } = await probe.query(
        "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
      );
      if (rows[0].n > 0) return;
      await sleep(2);
    }
  } finally {
    await probe.end();
  }
}

describe("the operator's quota change is exact", () => {
  test("setting 7 credits on an account whose slots hold other months and counts gives exactly 7 × 200 of 40", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url, { tier: "growth" });
    await placeCredits(db(), accountId, "2020-01", { 0: 5, 1: 9 });
    expect(await setQuota(server.url, accountId, 7)).toBe(7);
    const slots = await slotsOf(db(), accountId);
    expect(slots.reduce((sum, slot) => sum + slot.remaining, 0)).toBe(7);
    expect(new Set(slots.map((slot) => slot.period))).toEqual(new Set([thisPeriod()]));
    expect(countStatuses(await startsAtOnce(apiKey))).toEqual({ 200: 7, 402: 33 });
    expect(await quotaOf(server.url, accountId)).toBe(0);
  });

  test("a top-up of 3 credits at 0 gives exactly 3 × 200 of 20 simultaneous starts", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url, { tier: "growth", quota: 0 });
    expect((await calls.start("rest", apiKey, startBody())).status).toBe(402);
    expect(await setQuota(server.url, accountId, 3)).toBe(3);
    expect(await quotaOf(server.url, accountId)).toBe(3);
    expect(countStatuses(await startsAtOnce(apiKey, 20))).toEqual({ 200: 3, 402: 17 });
  });

  test("a quota set while starts are in flight: credits left = the count set − the starts billed after it", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url, { tier: "growth", quota: 1_000 });
    const inFlight = startsAtOnce(apiKey, 30);
    await setQuota(server.url, accountId, 500);
    const outcomes = await inFlight;
    expect(countStatuses(outcomes)).toEqual({ 200: 30 });
    // Each start was billed before the change (overwritten by it) or after it (taken from the 500).
    const left = await quotaOf(server.url, accountId);
    expect(left).toBeGreaterThanOrEqual(470);
    expect(left).toBeLessThanOrEqual(500);
  });
});
