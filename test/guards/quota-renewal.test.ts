import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { quotaOf, setQuota } from "../helpers/admin-client.ts";
import { type CallClient, countStatuses, createCallClient, startBody, TRANSPORTS } from "../helpers/call-client.ts";
import { slotsOf } from "../helpers/quota-slots.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../helpers/test-server.ts";

// A new month renews each credit slot lazily, on its own: these prove the
// month's credits still add up to exactly the allowance, whichever slots the
// last month's calls emptied and whichever the new month's calls reach first.

const clock = createManualClock(new Date("2026-11-20T10:00:00Z"));
let server: TestServer;
let calls: CallClient;

beforeAll(async () => {
  // Small allowances, so a month can be spent in a test; a long start budget, as 40 starts go at once.
  server = await startTestServer({
    clock,
    env: { QUOTA_GROWTH: "23", QUOTA_STARTER: "50", START_BUDGET_MS: "30000" },
  });
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  await server.stop();
});

function startsAtOnce(apiKey: string, count: number) {
  return Promise.all(Array.from({ length: count }, (_, i) => calls.start(TRANSPORTS[i % 2], apiKey, startBody())));
}

describe("monthly renewal with credit slots", () => {
  test("a new month gives exactly the allowance: 23 of 40 simultaneous starts succeed, whatever last month left", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url, { tier: "growth", quota: 23 });
    expect(await quotaOf(server.url, accountId)).toBe(23);
    // Last month: some slots emptied, others untouched.
    expect(countStatuses(await startsAtOnce(apiKey, 9))).toEqual({ 200: 9 });
    expect(await quotaOf(server.url, accountId)).toBe(14);

    clock.set(new Date("2026-12-01T00:00:01Z"));
    expect(await quotaOf(server.url, accountId)).toBe(23);
    // A few calls renew the slots they reach; the rest stay of November and still count as their share.
    expect(countStatuses(await startsAtOnce(apiKey, 3))).toEqual({ 200: 3 });
    expect(new Set((await slotsOf(server.context.database.db, accountId)).map((s) => s.period)).size).toBe(2);
    expect(await quotaOf(server.url, accountId)).toBe(20);
    expect(countStatuses(await startsAtOnce(apiKey, 40))).toEqual({ 200: 20, 402: 20 });
    expect(await quotaOf(server.url, accountId)).toBe(0);
  });

  test("a tier change mid-month keeps this month's credits and gives the new allowance from the next month", async () => {
    clock.set(new Date("2027-01-10T12:00:00Z"));
    const { accountId, apiKey } = await createAccountWithKey(server.url, { tier: "growth" });
    clock.set(new Date("2027-02-03T12:00:00Z"));
    // February's first call renews one slot at Growth's 23; the others renew when the tier changes.
    expect((await calls.start("rest", apiKey, startBody())).status).toBe(200);
    const changed = await post(server.url, `/admin/v1/accounts/${accountId}/tier`, ADMIN_TOKEN, { tier: "starter" });
    expect(changed.status).toBe(200);
    expect(changed.body.account.quota_remaining).toBe(22);
    expect(await quotaOf(server.url, accountId)).toBe(22);

    clock.set(new Date("2027-03-01T00:00:00Z"));
    expect(await quotaOf(server.url, accountId)).toBe(50);
    expect(countStatuses(await startsAtOnce(apiKey, 60))).toEqual({ 200: 50, 402: 10 });
  });

  test("credits the operator set this month are replaced by the allowance next month", async () => {
    clock.set(new Date("2027-04-15T12:00:00Z"));
    const { accountId } = await createAccountWithKey(server.url, { tier: "growth" });
    expect(await setQuota(server.url, accountId, 1_000)).toBe(1_000);
    clock.set(new Date("2027-05-01T00:00:00Z"));
    expect(await quotaOf(server.url, accountId)).toBe(23);
  });
});
