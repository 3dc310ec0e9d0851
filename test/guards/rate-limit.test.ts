import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QuotaExhaustedSchema, RateLimitExceededSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { createManualClock } from "../../src/domain/clock.ts";
import { quotaOf, setQuota } from "../helpers/admin-client.ts";
import {
  type CallClient,
  type CallOutcome,
  countStatuses,
  createCallClient,
  guardHeaders,
  startBody,
  TRANSPORTS,
  type Transport,
} from "../helpers/call-client.ts";
import { grpcErrorDetails } from "../helpers/grpc-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// The clock stands still unless a test moves it, so every request of a burst
// lands on the same millisecond and window edges can be hit exactly. It starts
// 30.25 s into a minute, so a minute-aligned window would show itself.
const clock = createManualClock(new Date("2030-06-14T12:00:30.250Z"));
let server: TestServer;
let calls: CallClient;

beforeAll(async () => {
  // Bursts of 50 at the embedded database may outlast the 1 s start budget; what is proved here is the count
  // the limiter allows, so the budget (its own suite: time-budget) is lifted.
  server = await startTestServer({ clock, env: { START_BUDGET_MS: "30000", END_BUDGET_MS: "30000" } });
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  await server.stop();
});

const now = () => clock.now().getTime();

async function freeKey() {
  return createAccountWithKey(server.url, { tier: "free", quota: 100_000 });
}

/** n starts one after another, each with a fresh call_id. */
async function burst(via: Transport, apiKey: string, n: number): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = [];
  for (let i = 0; i < n; i++) outcomes.push(await calls.start(via, apiKey, startBody()));
  return outcomes;
}

function graceWarnings(keyId: string): number {
  return server.logLines.filter((line) => line.includes("rate limit grace in use") && line.includes(keyId)).length;
}

function rateLimitDetail(outcome: CallOutcome) {
  return outcome.body?.retryAfter !== undefined
    ? {
        retryAfter: outcome.body.retryAfter,
        currentUsage: outcome.body.currentUsage,
        limit: outcome.body.limit,
        resetAt: outcome.body.resetAt,
      }
    : grpcErrorDetails(outcome.grpcError, RateLimitExceededSchema).map((d) => ({
        retryAfter: d.retryAfterSeconds,
        currentUsage: d.currentUsage,
        limit: d.limit,
        resetAt: d.resetAt ? new Date(Number(d.resetAt.seconds) * 1000 + d.resetAt.nanos / 1e6).toISOString() : null,
      }))[0];
}

describe.each(TRANSPORTS)("Free tier over %s", (via) => {
  test("requests 1..100 pass normally, 101..110 pass in the grace margin, the 111th gets 429", async () => {
    const { apiKey, keyId } = await freeKey();
    const normal = await burst(via, apiKey, 100);
    expect(countStatuses(normal)).toEqual({ 200: 100 });
    expect(normal.map((o) => o.headers["x-ratelimit-remaining"])).toEqual(
      Array.from({ length: 100 }, (_, i) => String(99 - i)),
    );
    expect(graceWarnings(keyId)).toBe(0);

    const grace = await burst(via, apiKey, 10);
    expect(countStatuses(grace)).toEqual({ 200: 10 });
    expect(grace.map((o) => o.headers["x-ratelimit-remaining"])).toEqual(Array(10).fill("0"));
    // The grace margin is the server's business: each of those requests is logged.
    expect(graceWarnings(keyId)).toBe(10);

    const [blocked] = await burst(via, apiKey, 1);
    expect(blocked.status).toBe(429);
    expect(rateLimitDetail(blocked)).toEqual({
      retryAfter: 60,
      currentUsage: 110,
      limit: 100,
      resetAt: new Date(now() + 60_000).toISOString(),
    });
  });

  test("refused requests are not counted: currentUsage stays 110 and the window reopens when the accepted leave", async () => {
    const { apiKey } = await freeKey();
    const acceptedAt = now();
    expect(countStatuses(await burst(via, apiKey, 110))).toEqual({ 200: 110 });

    // Refused half a window later: were they counted, they would still be in the window below.
    clock.advance(30_000);
    const refused = await burst(via, apiKey, 5);
    expect(countStatuses(refused)).toEqual({ 429: 5 });
    expect(refused.map((o) => rateLimitDetail(o)?.currentUsage)).toEqual([110, 110, 110, 110, 110]);
    expect(refused.map((o) => rateLimitDetail(o)?.retryAfter)).toEqual([30, 30, 30, 30, 30]);

    clock.set(new Date(acceptedAt + 60_001));
    const [reopened] = await burst(via, apiKey, 1);
    expect(reopened.status).toBe(200);
    expect(reopened.headers["x-ratelimit-remaining"]).toBe("99");
    expect(countStatuses(await burst(via, apiKey, 109))).toEqual({ 200: 109 });
    expect((await burst(via, apiKey, 1))[0].status).toBe(429);
  });

  test("the window rolls: a request is accepted exactly when the oldest counted request leaves 60 s later", async () => {
    const { apiKey } = await freeKey();
    const t0 = now(); // 30.25 s into a minute
    const first = await burst(via, apiKey, 60);
    expect(first[0].headers["x-ratelimit-reset"]).toBe(String(t0 + 60_000));
    clock.advance(20_000);
    expect(countStatuses(await burst(via, apiKey, 50))).toEqual({ 200: 110 - 60 });

    // Past the calendar minute: a window aligned to minutes would have emptied here.
    clock.set(new Date(t0 + 35_000));
    expect(new Date(now()).getUTCSeconds()).toBe(5);
    const afterMinute = (await burst(via, apiKey, 1))[0];
    expect(afterMinute.status).toBe(429);
    expect(rateLimitDetail(afterMinute)?.retryAfter).toBe(25);

    clock.set(new Date(t0 + 59_999));
    const lastRefused = (await burst(via, apiKey, 1))[0];
    expect(lastRefused.status).toBe(429);
    expect(rateLimitDetail(lastRefused)).toMatchObject({ retryAfter: 1, resetAt: new Date(t0 + 60_000).toISOString() });

    clock.set(new Date(t0 + 60_000));
    // The 60 from t0 have left; the 50 from t0 + 20 s still count.
    const reopened = await burst(via, apiKey, 60);
    expect(countStatuses(reopened)).toEqual({ 200: 60 });
    expect(reopened[0].headers["x-ratelimit-remaining"]).toBe(String(100 - 51));
    expect(reopened[0].headers["x-ratelimit-reset"]).toBe(String(t0 + 80_000));
    const full = (await burst(via, apiKey, 1))[0];
    expect(full.status).toBe(429);
    expect(rateLimitDetail(full)).toEqual({
      retryAfter: 20,
      currentUsage: 110,
      limit: 100,
      resetAt: new Date(t0 + 80_000).toISOString(),
    });
  });

  test("rate-limit and quota headers are on a 200, a 400, a 409 and a 429", async () => {
    const { accountId, apiKey } = await freeKey();
    await setQuota(server.url, accountId, 1_000);
    const reset = String(now() + 60_000);
    const body = startBody();

    const ok = await calls.start(via, apiKey, body);
    expect(ok.status).toBe(200);
    expect(guardHeaders(ok)).toEqual({ limit: "100", remaining: "99", reset, quota: "999" });

    const invalid = await calls.start(via, apiKey, { call_id: "" });
    expect(invalid.status).toBe(400);
    expect(guardHeaders(invalid)).toEqual({ limit: "100", remaining: "98", reset, quota: "999" });

    const duplicate = await calls.start(via, apiKey, body);
    expect(duplicate.status).toBe(409);
    expect(guardHeaders(duplicate)).toEqual({ limit: "100", remaining: "97", reset, quota: "999" });

    expect(countStatuses(await burst(via, apiKey, 107))).toEqual({ 200: 107 });
    const refused = await calls.start(via, apiKey, startBody());
    expect(refused.status).toBe(429);
    expect(guardHeaders(refused)).toEqual({ limit: "100", remaining: "0", reset, quota: String(999 - 107) });
    expect(await quotaOf(server.url, accountId)).toBe(999 - 107);
  });
});

describe("429 Too Many Requests", () => {
  test("REST: the body has retryAfter, currentUsage, limit, resetAt and a Retry-After header", async () => {
    const { apiKey } = await freeKey();
    await burst("rest", apiKey, 110);
    const res = (await burst("rest", apiKey, 1))[0];
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      error: "Too Many Requests",
      message: expect.any(String),
      retryAfter: 60,
      currentUsage: 110,
      limit: 100,
      resetAt: new Date(now() + 60_000).toISOString(),
    });
    expect(res.headers["retry-after"]).toBe("60");
  });

  test("gRPC: RESOURCE_EXHAUSTED with a RateLimitExceeded detail and no QuotaExhausted", async () => {
    const { apiKey } = await freeKey();
    await burst("grpc", apiKey, 110);
    const { grpcError } = (await burst("grpc", apiKey, 1))[0];
    expect(grpcError?.code).toBe(status.RESOURCE_EXHAUSTED);
    const [detail] = grpcErrorDetails(grpcError, RateLimitExceededSchema);
    expect(detail).toMatchObject({ retryAfterSeconds: 60, currentUsage: 110, limit: 100 });
    expect(grpcErrorDetails(grpcError, QuotaExhaustedSchema)).toEqual([]);
  });

  test("gRPC: a client tells the rate limit from an empty quota by the typed detail", async () => {
    const limited = await freeKey();
    await burst("grpc", limited.apiKey, 110);
    const rate = (await burst("grpc", limited.apiKey, 1))[0].grpcError;

    const broke = await createAccountWithKey(server.url, { tier: "free", quota: 0 });
    const quota = (await burst("grpc", broke.apiKey, 1))[0].grpcError;

    expect(rate?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(quota?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(grpcErrorDetails(rate, RateLimitExceededSchema)[0]?.retryAfterSeconds).toBeGreaterThan(0);
    expect(grpcErrorDetails(rate, QuotaExhaustedSchema)).toEqual([]);
    expect(grpcErrorDetails(quota, QuotaExhaustedSchema)[0]).toMatchObject({
      quotaRemaining: 0,
      billingAccountId: broke.billingAccountId,
    });
    expect(grpcErrorDetails(quota, RateLimitExceededSchema)).toEqual([]);
  });

  test("the limit follows the tier: a Starter key gets 660 of 700 requests sent 50 at a time over both wires", async () => {
    const { apiKey } = await createAccountWithKey(server.url, { tier: "starter", quota: 100_000 });
    const outcomes: CallOutcome[] = [];
    for (let sent = 0; sent < 700; sent += 50) {
      const via = (i: number): Transport => TRANSPORTS[i % 2];
      outcomes.push(
        ...(await Promise.all(Array.from({ length: 50 }, (_, i) => calls.start(via(i), apiKey, startBody())))),
      );
    }
    expect(countStatuses(outcomes)).toEqual({ 200: 660, 429: 40 });
    const refused = outcomes.find((o) => o.status === 429)!;
    expect(refused.headers["x-ratelimit-limit"]).toBe("600");
    expect(rateLimitDetail(refused)).toMatchObject({ currentUsage: 660, limit: 600 });
  });
});
