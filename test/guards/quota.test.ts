import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QuotaExhaustedSchema, RateLimitExceededSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { createKey, quotaOf, setQuota } from "../helpers/admin-client.ts";
import {
  type CallClient,
  countStatuses,
  createCallClient,
  startBody,
  TRANSPORTS,
  type Transport,
  uniqueCallId,
} from "../helpers/call-client.ts";
import { grpcErrorDetails } from "../helpers/grpc-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let calls: CallClient;

beforeAll(async () => {
  server = await startTestServer();
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  await server.stop();
});

/** A Growth account, whose rate limit stays out of the way, with `credits` left. */
async function accountWithCredits(credits: number) {
  const account = await createAccountWithKey(server.url, { tier: "growth" });
  expect(await setQuota(server.url, account.accountId, credits)).toBe(credits);
  return account;
}

describe.each(TRANSPORTS)("2xx over %s uses one credit", (via) => {
  test("each successful start and end takes one credit, shown in X-Quota-Remaining", async () => {
    const { accountId, apiKey } = await accountWithCredits(10);
    const callId = uniqueCallId();
    const started = await calls.start(via, apiKey, startBody(callId));
    expect(started.status).toBe(200);
    expect(started.headers["x-quota-remaining"]).toBe("9");
    const ended = await calls.end(via, apiKey, { call_id: callId, customer_ref: started.body.customer_ref });
    expect(ended.status).toBe(200);
    expect(ended.headers["x-quota-remaining"]).toBe("8");
    expect(await quotaOf(server.url, accountId)).toBe(8);
  });
});

describe.each(TRANSPORTS)("4xx over %s uses no credit", (via) => {
  test("400 for an invalid body, 409 for a duplicate start or a second end, 404 for an unknown call", async () => {
    const { accountId, apiKey } = await accountWithCredits(10);
    const callId = uniqueCallId();
    const started = await calls.start(via, apiKey, startBody(callId));
    const customerRef = started.body.customer_ref;
    expect((await calls.end(via, apiKey, { call_id: callId, customer_ref: customerRef })).status).toBe(200);
    expect(await quotaOf(server.url, accountId)).toBe(8);

    const failures = [
      [400, await calls.start(via, apiKey, { call_id: uniqueCallId(), identity_hints: {} })],
      [400, await calls.end(via, apiKey, { call_id: callId })],
      [409, await calls.start(via, apiKey, startBody(callId))],
      [409, await calls.end(via, apiKey, { call_id: callId, customer_ref: customerRef })],
      [404, await calls.end(via, apiKey, { call_id: uniqueCallId(), customer_ref: customerRef })],
    ] as const;
    for (const [expected, outcome] of failures) {
      expect(outcome.status).toBe(expected);
      expect(outcome.headers["x-quota-remaining"]).toBe("8");
    }
    expect(await quotaOf(server.url, accountId)).toBe(8);
  });

  test("a request refused by the rate limit uses no credit", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url, { tier: "free", quota: 500 });
    const outcomes = [];
    for (let i = 0; i < 115; i++) outcomes.push(await calls.start(via, apiKey, startBody()));
    expect(countStatuses(outcomes)).toEqual({ 200: 110, 429: 5 });
    expect(outcomes.at(-1)?.headers["x-quota-remaining"]).toBe("390");
    expect(await quotaOf(server.url, accountId)).toBe(390);
  });

  test("a request with an unusable key uses no credit of any account", async () => {
    const { accountId, apiKey } = await accountWithCredits(3);
    const broken = `${apiKey.slice(0, -1)}${apiKey.endsWith("a") ? "b" : "a"}`;
    expect((await calls.start(via, broken, startBody())).status).toBe(401);
    expect(await quotaOf(server.url, accountId)).toBe(3);
  });
});

describe("402 Payment Required", () => {
  test.each(TRANSPORTS)("at 0 credits start and end are refused over %s, with no grace", async (via) => {
    const { accountId, billingAccountId, apiKey } = await accountWithCredits(1);
    const callId = uniqueCallId();
    const started = await calls.start(via, apiKey, startBody(callId));
    expect(started.status).toBe(200);
    expect(started.headers["x-quota-remaining"]).toBe("0");

    const start = await calls.start(via, apiKey, startBody());
    const end = await calls.end(via, apiKey, { call_id: callId, customer_ref: started.body.customer_ref });
    for (const refused of [start, end]) {
      expect(refused.status).toBe(402);
      expect(refused.headers["x-quota-remaining"]).toBe("0");
      expect(refused.headers["x-ratelimit-limit"]).toBe("3000");
      if (via === "rest") {
        expect(refused.body).toEqual({
          error: "Payment Required",
          message: expect.any(String),
          quota_remaining: 0,
          billing_account_id: billingAccountId,
        });
      } else {
        expect(refused.grpcError?.code).toBe(status.RESOURCE_EXHAUSTED);
        expect(grpcErrorDetails(refused.grpcError, QuotaExhaustedSchema)).toEqual([
          expect.objectContaining({ quotaRemaining: 0, billingAccountId }),
        ]);
        expect(grpcErrorDetails(refused.grpcError, RateLimitExceededSchema)).toEqual([]);
      }
    }
    expect(await quotaOf(server.url, accountId)).toBe(0);

    // Credits added by the operator end the refusal; the call started before can still be ended.
    await setQuota(server.url, accountId, 1);
    const ended = await calls.end(via, apiKey, { call_id: callId, customer_ref: started.body.customer_ref });
    expect(ended.status).toBe(200);
    expect(ended.headers["x-quota-remaining"]).toBe("0");
  });

  test("an invalid request at 0 credits is 402, not 400: the quota is checked first", async () => {
    const { apiKey } = await accountWithCredits(0);
    expect((await calls.start("rest", apiKey, { call_id: "" })).status).toBe(402);
  });
});

describe("the quota is exact under concurrency", () => {
  test.each<[string, (i: number) => Transport]>([
    ["REST", () => "rest"],
    ["gRPC", () => "grpc"],
    ["REST and gRPC mixed", (i) => TRANSPORTS[i % 2]],
  ])("with 5 credits, 20 simultaneous starts over %s give exactly 5 × 200 and 15 × 402", async (_name, via) => {
    const { accountId, apiKey } = await accountWithCredits(5);
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => calls.start(via(i), apiKey, startBody())));
    expect(countStatuses(outcomes)).toEqual({ 200: 5, 402: 15 });
    // Each success reports about what was left (the instance's count less its charges, or a statement's
    // snapshot): exact for a call alone, an upper bound when calls overlap (docs/limits.md); the count of
    // successes above is what proves no credit went twice.
    const left = outcomes.filter((o) => o.status === 200).map((o) => Number(o.headers["x-quota-remaining"]));
    for (const count of left) expect(count).toBeGreaterThanOrEqual(0);
    for (const count of left) expect(count).toBeLessThanOrEqual(4);
    expect(await quotaOf(server.url, accountId)).toBe(0);
  });
});

describe.each(TRANSPORTS)("a call that finds no credit in the database, over %s", (via) => {
  // The quota guard's early check passes on the credit count it saw a moment ago; the
  // admin API then takes the credits away, so only the call's own statement finds none.
  async function accountJustEmptied() {
    const account = await accountWithCredits(3);
    expect((await calls.start(via, account.apiKey, startBody())).status).toBe(200);
    await setQuota(server.url, account.accountId, 0);
    return account;
  }

  test("a start is answered 402 and writes nothing: its call_id starts afresh once credit is back", async () => {
    const { accountId, apiKey } = await accountJustEmptied();
    const body = startBody();
    expect((await calls.start(via, apiKey, body)).status).toBe(402);
    await setQuota(server.url, accountId, 1);
    expect((await calls.start(via, apiKey, body)).status).toBe(200);
  });

  test("an end is answered 402 and writes nothing: the call is still open once credit is back", async () => {
    const { accountId, apiKey } = await accountWithCredits(3);
    const started = await calls.start(via, apiKey, startBody());
    const end = { call_id: started.body.call_id, customer_ref: started.body.customer_ref };
    await setQuota(server.url, accountId, 0);
    expect((await calls.end(via, apiKey, end)).status).toBe(402);
    await setQuota(server.url, accountId, 1);
    expect((await calls.end(via, apiKey, end)).status).toBe(200);
  });
});

describe("test and prod keys share one quota", () => {
  test("credits used through sk_test_ and sk_prod_ keys come from the same account balance", async () => {
    const { accountId, billingAccountId, apiKey: testKey } = await accountWithCredits(3);
    const { apiKey: prodKey } = await createKey(server.url, accountId, "prod");

    expect((await calls.start("rest", testKey, startBody())).headers["x-quota-remaining"]).toBe("2");
    expect((await calls.start("grpc", prodKey, startBody())).headers["x-quota-remaining"]).toBe("1");
    expect((await calls.start("grpc", testKey, startBody())).headers["x-quota-remaining"]).toBe("0");
    const refused = await calls.start("rest", prodKey, startBody());
    expect(refused.status).toBe(402);
    expect(refused.body.billing_account_id).toBe(billingAccountId);
    expect((await calls.start("grpc", testKey, startBody())).status).toBe(402);
  });
});

describe.each(TRANSPORTS)("failing requests hold no credit, over %s", (via) => {
  test("with 1 credit, 10 simultaneous duplicate starts do not starve 1 valid start: it gets 200", async () => {
    const { accountId, apiKey } = await accountWithCredits(2);
    const duplicate = uniqueCallId();
    expect((await calls.start(via, apiKey, startBody(duplicate))).status).toBe(200);
    expect(await quotaOf(server.url, accountId)).toBe(1);
    for (let round = 0; round < 3; round++) {
      const valid = calls.start(via, apiKey, startBody());
      const duplicates = Array.from({ length: 10 }, () => calls.start(via, apiKey, startBody(duplicate)));
      const [validOutcome, ...duplicateOutcomes] = await Promise.all([valid, ...duplicates]);
      expect(validOutcome.status).toBe(200);
      // Each duplicate is refused either way: 409 while the credit is there, 402 once the valid start took it.
      for (const outcome of duplicateOutcomes) expect([402, 409]).toContain(outcome.status);
      expect(await quotaOf(server.url, accountId)).toBe(0);
      await setQuota(server.url, accountId, 1);
    }
  });
});
