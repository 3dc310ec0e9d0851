import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sweepOnce } from "../../src/jobs/sweeper.ts";
import { setQuota } from "../helpers/admin-client.ts";
import { uniqueCallId } from "../helpers/call-client.ts";
import { createEventEndpoint, listEventDeliveries } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// customer.merged, customer.erased and credits.low, each written with the
// change that causes it and delivered over the real wire.

// The retention sweep, which writes a credits.low no call's statement wrote, every second (the least allowed).
const fixture = useTestServer({
  env: { EVENTS_POLL_MS: "20", EVENTS_RETRY_DELAYS_MS: "10,10,10", SWEEP_INTERVAL_MS: "1000" },
});

let receiver: EventReceiver;
beforeAll(async () => {
  receiver = await startEventReceiver();
});
afterAll(async () => {
  await receiver.close();
});

async function accountWithEndpoint(types: string[], account: { tier?: string; quota?: number } = {}) {
  const { accountId, apiKey } = await createAccountWithKey(fixture.server.url, account);
  const { endpointId, secret } = await createEventEndpoint(fixture.server.url, accountId, {
    url: receiver.url,
    event_types: types,
  });
  receiver.secret = secret;
  return { accountId, apiKey, endpointId };
}

async function newCustomer(apiKey: string, ani: string): Promise<string> {
  const res = await post(fixture.server.url, "/v1/calls/start", apiKey, {
    call_id: uniqueCallId("cust"),
    identity_hints: { ani },
  });
  expect(res.status).toBe(200);
  return res.body.customer_ref;
}

const ofAccount = (accountId: string, type: string) => (event: { payload: any }) =>
  event.payload?.account_id === accountId && event.payload.type === type;

describe("customer events", () => {
  test("a merge delivers customer.merged naming the survivor and the merged ref", async () => {
    const { accountId, apiKey } = await accountWithEndpoint(["customer.merged"]);
    const survivor = await newCustomer(apiKey, "+14155550101");
    const merged = await newCustomer(apiKey, "+14155550102");
    const res = await post(fixture.server.url, `/v1/customers/${survivor}/merge`, apiKey, { from: merged });
    expect(res.status).toBe(200);
    const [event] = await receiver.waitFor(1, ofAccount(accountId, "customer.merged"));
    expect(event!.verified).toBe(true);
    expect(event!.payload.data).toEqual({ customer_ref: survivor, merged_ref: merged });
  });

  test("an erasure delivers customer.erased with the ref only", async () => {
    const { accountId, apiKey } = await accountWithEndpoint(["customer.erased"]);
    const ref = await newCustomer(apiKey, "+14155550103");
    const res = await request(fixture.server.url, "DELETE", `/v1/customers/${ref}`, { token: apiKey });
    expect(res.status).toBe(200);
    const [event] = await receiver.waitFor(1, ofAccount(accountId, "customer.erased"));
    expect(event!.payload.data).toEqual({ customer_ref: ref });
  });

  test("an erasure that finds no customer writes no event", async () => {
    const { apiKey, endpointId } = await accountWithEndpoint(["customer.erased"]);
    const ref = await newCustomer(apiKey, "+14155550104");
    await request(fixture.server.url, "DELETE", `/v1/customers/${ref}`, { token: apiKey });
    const again = await request(fixture.server.url, "DELETE", `/v1/customers/${ref}`, { token: apiKey });
    expect(again.status).toBe(404);
    // An erasure writes its event's outbox row in its own statement, so the outbox already holds whatever either
    // erasure wrote (read here rather than waiting on deliveries, whose order across customers is not kept).
    const deliveries = await listEventDeliveries(fixture.server.url, endpointId);
    expect(deliveries.map((delivery) => delivery.event_type)).toEqual(["customer.erased"]);
  });
});

describe("credits.low", () => {
  test("is sent once at 80 % of the month's quota used and once at 100 %", async () => {
    // Free tier: an allowance of 100 credits a month.
    const { accountId, apiKey } = await accountWithEndpoint(["credits.low"], { tier: "free", quota: 100 });
    await setQuota(fixture.server.url, accountId, 21);
    await newCustomer(apiKey, "+14155550110"); // 20 left: 80 % used
    await newCustomer(apiKey, "+14155550111"); // 19 left: past 80 %, already told
    const [first] = await receiver.waitFor(1, ofAccount(accountId, "credits.low"));
    expect(first!.payload.data).toMatchObject({ threshold_percent: 80, credits_left: 20, monthly_quota: 100 });
    await setQuota(fixture.server.url, accountId, 1);
    await newCustomer(apiKey, "+14155550112"); // 0 left: 100 % used
    const refused = await post(fixture.server.url, "/v1/calls/start", apiKey, {
      call_id: uniqueCallId("cust"),
      identity_hints: { ani: "+14155550113" },
    });
    expect(refused.status).toBe(402);
    const events = await receiver.waitFor(2, ofAccount(accountId, "credits.low"));
    expect(events.map((e) => e.payload.data.threshold_percent)).toEqual([80, 100]);
    expect(events[1]!.payload.data.credits_left).toBe(0);
  });

  test("a threshold crossed without its notice is written by the next sweep, once, with no further call", async () => {
    const { accountId, apiKey, endpointId } = await accountWithEndpoint(["credits.low"], { tier: "free", quota: 100 });
    // Off during the calls, so that nothing is delivered before the notice is taken back below.
    await setEndpointEnabled(endpointId, false);
    await setQuota(fixture.server.url, accountId, 21);
    await newCustomer(apiKey, "+14155550120"); // 20 left: 80 % used
    await newCustomer(apiKey, "+14155550121"); // 19 left
    await waitForNotices(accountId, [80]);
    // An endpoint that is off gets no outbox rows: the statement after the calls wrote the notice alone.
    expect(await listEventDeliveries(fixture.server.url, endpointId)).toEqual([]);
    await setEndpointEnabled(endpointId, true);

    // Stands for an instance that stopped between the calls and the statement writing the notice and the event:
    // the credits are spent, and neither was written. No call of the account follows.
    await sql`delete from credits_low_notices where account_id = ${accountId}`.execute(
      fixture.server.context.database.db,
    );

    const [event] = await receiver.waitFor(1, ofAccount(accountId, "credits.low"));
    expect(event!.verified).toBe(true);
    expect(event!.payload.data).toEqual({
      threshold_percent: 80,
      credits_left: 19,
      monthly_quota: 100,
      period: new Date().toISOString().slice(0, 7),
    });
    expect(await noticesOf(accountId)).toEqual([80]);
    // A sweep after that one finds nothing more to write, and the outbox holds the one event.
    expect(await sweepUntilItRuns()).toMatchObject({ creditsLowNotices: 0 });
    const deliveries = await listEventDeliveries(fixture.server.url, endpointId);
    expect(deliveries.map((d) => d.event_type)).toEqual(["credits.low"]);
    expect(receiver.received.filter(ofAccount(accountId, "credits.low"))).toHaveLength(1);
  });
});

async function setEndpointEnabled(endpointId: string, enabled: boolean) {
  const res = await post(fixture.server.url, `/admin/v1/event-endpoints/${endpointId}/enabled`, ADMIN_TOKEN, {
    enabled,
  });
  expect(res.status).toBe(200);
}

async function noticesOf(accountId: string): Promise<number[]> {
  const { rows } = await sql<{ threshold: number }>`
    select threshold from credits_low_notices where account_id = ${accountId} order by threshold
  `.execute(fixture.server.context.database.db);
  return rows.map((row) => row.threshold);
}

/** The notices are written after the calls answer, off their path. */
async function waitForNotices(accountId: string, thresholds: number[]) {
  for (let i = 0; i < 200; i++) {
    if (JSON.stringify(await noticesOf(accountId)) === JSON.stringify(thresholds)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no notices ${thresholds} for ${accountId}`);
}

/** One sweep of our own; the server's sweeper may hold the lock for a moment. */
async function sweepUntilItRuns() {
  const { db } = fixture.server.context.database;
  for (let i = 0; i < 200; i++) {
    const result = await sweepOnce(db, new Date(), 1000, fixture.server.config.monthlyQuota);
    if (result !== undefined) return result;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the sweep lock stayed taken");
}
