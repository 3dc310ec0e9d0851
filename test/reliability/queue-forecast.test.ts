import { setTimeout as sleep } from "node:timers/promises";
import { status as grpcStatus } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { type CallClient, createCallClient, startBody, TRANSPORTS, uniqueCallId } from "../helpers/call-client.ts";
import { blockDatabase } from "../helpers/database-blocker.ts";
import { callUnary, createGrpcClient } from "../helpers/grpc-client.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// Admission by deadline over the real wire, with the limit held full by a
// locked row: a call that can still be served within its deadline waits its
// turn and is served; one that cannot (its own deadline is too close, or
// calls keep arriving while the queue stands still) is refused at once,
// rather than after waiting for nothing.

const QUEUE_WAIT_MS = 1000;
const HOLD_MS = 3000;
let server: TestServer;
let calls: CallClient;

beforeAll(async () => {
  server = await startTestServer({
    env: {
      ADMISSION_INITIAL_LIMIT: "2",
      ADMISSION_MIN_LIMIT: "2",
      ADMISSION_MAX_LIMIT: "2",
      ADMISSION_QUEUE_SIZE: "16",
      ADMISSION_QUEUE_WAIT_MS: String(QUEUE_WAIT_MS),
      START_BUDGET_MS: "5000",
      END_BUDGET_MS: "8000",
    },
  });
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  await server.stop();
});

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5000) throw new Error("condition not reached");
    await sleep(5);
  }
}

/** Two ends held in flight by a locked account row fill the limit for HOLD_MS; then a start queues behind them. */
async function standStill(apiKey: string, accountId: string) {
  const started = [uniqueCallId(), uniqueCallId()];
  const refs: string[] = [];
  for (const callId of started) refs.push((await calls.start("rest", apiKey, startBody(callId))).body.customer_ref);
  const block = await blockDatabase(server, accountId, HOLD_MS);
  const ends = started.map((callId, i) => calls.end("rest", apiKey, { call_id: callId, customer_ref: refs[i] }));
  await until(() => server.context.admission.stats().inFlight === 2);
  const head = calls.start("rest", apiKey, startBody(uniqueCallId("head")));
  await until(() => server.context.admission.stats().queued === 1);
  return { block, ends, head };
}

const refusedForecasts = () => server.context.admission.stats().refused.queue_forecast;

describe.each(TRANSPORTS)("starts over %s arriving behind a queue that has not moved", (via) => {
  test("wait while they can still be served in time and are served; the rest are refused at once", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const { block, ends, head } = await standStill(apiKey, accountId);
    // Stuck for 1.2 s: every call in line forecasts a wait of more than that. Against a 5 s budget it may
    // join; once calls keep arriving faster than they are let in (a few more than none), against the 1 s a
    // standing queue allows, it may not.
    await sleep(QUEUE_WAIT_MS + 200);
    const before = server.context.admission.stats().refused;
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => calls.start(via, apiKey, startBody(uniqueCallId("behind")))),
    );
    await block.lifted;

    const served = outcomes.filter((outcome) => outcome.status === 200);
    const refused = outcomes.filter((outcome) => outcome.status === 503);
    expect(served.length + refused.length).toBe(outcomes.length);
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    for (const outcome of refused) expect(outcome.body.message).toMatch(/^Too many calls/);
    // Every refusal was decided on arrival, none after a wait for nothing.
    const after = server.context.admission.stats().refused;
    expect(after.queue_forecast + after.limit - before.queue_forecast - before.limit).toBe(refused.length);
    expect(after.deadline).toBe(before.deadline);
    expect((await head).status).toBe(200); // its 5 s budget outlasted the 3 s hold
    for (const outcome of served) expect(outcome.body.customer_ref).toEqual(expect.any(String));
    for (const end of await Promise.all(ends)) expect(end.status).toBe(200);
  });
});

describe("a start with a deadline of its own", () => {
  test("is refused at once when its turn would come too late for it, and the same call without one waits and is served", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const { block, ends, head } = await standStill(apiKey, accountId);
    await sleep(600); // stuck for 0.6 s: a call in line waits longer than that, inside the 5 s budget
    const before = refusedForecasts();
    const hurried = await request(server.url, "POST", "/callercontext.v1.CallerContextService/StartCall", {
      token: apiKey,
      body: { callId: uniqueCallId("hurried"), identityHints: { ani: "+14155550123" } },
      headers: { "connect-protocol-version": "1", "connect-timeout-ms": "500" },
    });

    expect(hurried.status).toBe(503);
    expect(hurried.body).toMatchObject({ code: "unavailable", message: expect.stringMatching(/^Too many calls/) });
    // Refused by the forecast on arrival, not by its deadline after a wait: nothing else joined the queue.
    expect(refusedForecasts()).toBe(before + 1);
    expect(server.context.admission.stats()).toMatchObject({ queued: 1, refused: { deadline: 0 } });

    const patient = calls.start("rest", apiKey, startBody(uniqueCallId("patient")));
    await until(() => server.context.admission.stats().queued === 2);
    await block.lifted;
    expect((await head).status).toBe(200);
    expect((await patient).status).toBe(200);
    for (const end of await Promise.all(ends)) expect(end.status).toBe(200);
  });

  test("over gRPC, its grpc-timeout is its deadline: refused at once with UNAVAILABLE, not left to run out", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const { block, ends, head } = await standStill(apiKey, accountId);
    await sleep(600);
    const before = refusedForecasts();
    const client = createGrpcClient(server.url);
    try {
      // grpc-js sends the deadline as grpc-timeout; past it, the client would give up on its own (DEADLINE_EXCEEDED).
      const { error } = await callUnary(
        client,
        CallerContextService.method.startCall,
        { callId: uniqueCallId("hurried"), identityHints: { ani: "+14155550123" } },
        { authorization: `Bearer ${apiKey}` },
        { deadlineMs: 500 },
      );
      expect(error?.code).toBe(grpcStatus.UNAVAILABLE);
      expect(error?.details).toMatch(/^Too many calls/);
    } finally {
      client.close();
    }
    expect(refusedForecasts()).toBe(before + 1);
    expect(server.context.admission.stats()).toMatchObject({ queued: 1, refused: { deadline: 0 } });
    await block.lifted;
    expect((await head).status).toBe(200);
    for (const end of await Promise.all(ends)) expect(end.status).toBe(200);
  });
});
