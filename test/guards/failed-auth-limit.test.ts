import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { RateLimitExceededSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { type CallClient, countStatuses, createCallClient, startBody, TRANSPORTS } from "../helpers/call-client.ts";
import { grpcErrorDetails } from "../helpers/grpc-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const ALLOWED_FAILURES = 5;

describe.each(TRANSPORTS)("a burst of bad keys from one client over %s", (via) => {
  let server: TestServer;
  let calls: CallClient;
  beforeAll(async () => {
    // A server of its own per transport: the failure count is per client address.
    server = await startTestServer({ env: { AUTH_FAILURES_PER_MINUTE: String(ALLOWED_FAILURES) } });
    calls = createCallClient(server.url);
  });
  afterAll(async () => {
    calls.close();
    await server.stop();
  });

  test("is slowed to 429 past its allowance, while a valid key from the same client still works", async () => {
    const { apiKey } = await createAccountWithKey(server.url, { tier: "growth" });
    const bad = `sk_test_${"x".repeat(40)}`;
    const guesses = [];
    for (let i = 0; i < ALLOWED_FAILURES + 3; i++) guesses.push(await calls.start(via, bad, startBody()));
    expect(countStatuses(guesses)).toEqual({ 401: ALLOWED_FAILURES, 429: 3 });
    const slowed = guesses.at(-1)!;
    expect(Number(slowed.headers["retry-after"])).toBeGreaterThan(0);
    if (via === "rest") {
      expect(slowed.body).toMatchObject({ error: "Too Many Requests", limit: ALLOWED_FAILURES });
    } else {
      expect(slowed.grpcError?.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(grpcErrorDetails(slowed.grpcError, RateLimitExceededSchema)).toHaveLength(1);
    }
    expect((await calls.start(via, apiKey, startBody())).status).toBe(200);
  });
});
