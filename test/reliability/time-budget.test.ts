import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { quotaOf } from "../helpers/admin-client.ts";
import { type CallClient, createCallClient, startBody, TRANSPORTS, uniqueCallId } from "../helpers/call-client.ts";
import { blockDatabase } from "../helpers/database-blocker.ts";
import { callUnary, createGrpcClient } from "../helpers/grpc-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const BUDGET_MS = 300;
let server: TestServer;
let calls: CallClient;

beforeAll(async () => {
  server = await startTestServer({ env: { START_BUDGET_MS: String(BUDGET_MS) } });
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  await server.stop();
});

describe.each(TRANSPORTS)("a start over %s that cannot be answered within its budget", (via) => {
  test("fails fast with 503 and Retry-After, and leaves nothing behind", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const credits = await quotaOf(server.url, accountId);
    const callId = uniqueCallId();
    const block = await blockDatabase(server, accountId, 1000);
    const began = performance.now();
    const outcome = await calls.start(via, apiKey, startBody(callId));
    const tookMs = performance.now() - began;
    await block.lifted;

    expect(outcome.status).toBe(503);
    expect(outcome.headers["retry-after"]).toBe("1");
    if (via === "rest") expect(outcome.body).toEqual({ error: "Service Unavailable", message: expect.any(String) });
    else expect(outcome.grpcError?.code).toBe(status.UNAVAILABLE);
    expect(tookMs).toBeLessThan(1000);

    // The abandoned work rolled back: the call_id is free and no credit was used.
    expect((await calls.start(via, apiKey, startBody(callId))).status).toBe(200);
    expect(await quotaOf(server.url, accountId)).toBe(credits - 1);
  });
});

describe("a gRPC client's deadline", () => {
  test("is honoured, and the database work it cancels is rolled back", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const callId = uniqueCallId();
    const client = createGrpcClient(server.url);
    // Lifted before the 300 ms budget ends: only the client's 100 ms deadline can stop the work.
    const block = await blockDatabase(server, accountId, 250);
    const { error } = await callUnary(
      client,
      CallerContextService.method.startCall,
      { callId, identityHints: { ani: "+14155550123" } },
      { authorization: `Bearer ${apiKey}` },
      { deadlineMs: 100 },
    );
    await block.lifted;
    client.close();
    expect(error?.code).toBe(status.DEADLINE_EXCEEDED);
    expect((await calls.start("rest", apiKey, startBody(callId))).status).toBe(200);
  });
});
