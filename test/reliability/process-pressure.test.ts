import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CallClient, createCallClient, startBody } from "../helpers/call-client.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// The server runs in this process: holding this thread holds its event loop.

let server: TestServer;
let calls: CallClient;

beforeAll(async () => {
  server = await startTestServer({ env: { ADMISSION_MAX_EVENT_LOOP_DELAY_MS: "40" } });
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  await server.stop();
});

/** Keeps the event loop late by `stepMs` at every turn for `forMs`. */
async function holdTheEventLoop(forMs: number, stepMs: number) {
  const until = performance.now() + forMs;
  while (performance.now() < until) {
    const stepEnd = performance.now() + stepMs;
    while (performance.now() < stepEnd) {}
    await sleep(0);
  }
}

describe("an event loop running late", () => {
  test("refuses new calls with 503 and reports degraded health, then recovers", async () => {
    const { apiKey } = await createAccountWithKey(server.url);
    await holdTheEventLoop(1200, 120);
    const [start, health] = await Promise.all([
      calls.start("rest", apiKey, startBody()),
      request(server.url, "GET", "/v1/health"),
    ]);
    expect(start.status).toBe(503);
    expect(start.body.message).toMatch(/overloaded/);
    expect(start.headers["retry-after"]).toBe("1");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("degraded");
    expect(server.context.admission.stats().refused.pressure).toBeGreaterThan(0);

    await sleep(1200);
    expect((await calls.start("rest", apiKey, startBody())).status).toBe(200);
  });
});
