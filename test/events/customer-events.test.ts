import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { setQuota } from "../helpers/admin-client.ts";
import { uniqueCallId } from "../helpers/call-client.ts";
import { createEventEndpoint } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// customer.merged, customer.erased and credits.low, each written with the
// change that causes it and delivered over the real wire.

const fixture = useTestServer({ env: { EVENTS_POLL_MS: "20", EVENTS_RETRY_DELAYS_MS: "10,10,10" } });

let receiver: EventReceiver;
beforeAll(async () => {
  receiver = await startEventReceiver();
});
afterAll(async () => {
  await receiver.close();
});

async function accountWithEndpoint(types: string[], account: { tier?: string; quota?: number } = {}) {
  const { accountId, apiKey } = await createAccountWithKey(fixture.server.url, account);
  const { secret } = await createEventEndpoint(fixture.server.url, accountId, {
    url: receiver.url,
    event_types: types,
  });
  receiver.secret = secret;
  return { accountId, apiKey };
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
    const { accountId, apiKey } = await accountWithEndpoint(["customer.erased", "customer.merged"]);
    const ref = await newCustomer(apiKey, "+14155550104");
    await request(fixture.server.url, "DELETE", `/v1/customers/${ref}`, { token: apiKey });
    const again = await request(fixture.server.url, "DELETE", `/v1/customers/${ref}`, { token: apiKey });
    expect(again.status).toBe(404);
    // Written after the second erasure: once it arrives, anything the erasure wrote would be there too.
    const other = await newCustomer(apiKey, "+14155550105");
    const third = await newCustomer(apiKey, "+14155550106");
    await post(fixture.server.url, `/v1/customers/${other}/merge`, apiKey, { from: third });
    await receiver.waitFor(1, ofAccount(accountId, "customer.merged"));
    expect(receiver.received.filter(ofAccount(accountId, "customer.erased"))).toHaveLength(1);
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
});
