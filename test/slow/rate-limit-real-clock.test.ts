import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  type CallClient,
  type CallOutcome,
  countStatuses,
  createCallClient,
  startBody,
} from "../helpers/call-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// The rolling window on the real clock: no manual time, a real minute.

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

test("a Free key blocked at the 111th request is accepted again once retryAfter has passed", async ({ annotate }) => {
  const { apiKey } = await createAccountWithKey(server.url, { tier: "free", quota: 1_000 });
  const burst: CallOutcome[] = [];
  const firstSentAt = Date.now();
  burst.push(await calls.start("rest", apiKey, startBody()));
  const firstDoneAt = Date.now();
  for (let i = 1; i < 110; i++) burst.push(await calls.start("rest", apiKey, startBody()));
  expect(countStatuses(burst)).toEqual({ 200: 110 });

  const blocked = await calls.start("rest", apiKey, startBody());
  const blockedAt = Date.now();
  expect(blocked.status).toBe(429);
  const { retryAfter, resetAt } = blocked.body;
  // The window opens again when the first request of the burst is 60 s old.
  const resetAtMs = Date.parse(resetAt);
  expect(resetAtMs).toBeGreaterThanOrEqual(firstSentAt + 60_000);
  expect(resetAtMs).toBeLessThanOrEqual(firstDoneAt + 60_000);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(resetAtMs).toBeLessThanOrEqual(blockedAt + retryAfter * 1_000);

  // A second before the oldest request leaves, the window is still full.
  await sleep(resetAtMs - 1_000 - Date.now());
  const stillBlocked = await calls.start("rest", apiKey, startBody());
  expect(stillBlocked.status).toBe(429);
  expect(stillBlocked.body.currentUsage).toBe(110);

  // A client that waits retryAfter seconds, as the spec tells it to, is accepted.
  await sleep(blockedAt + retryAfter * 1_000 - Date.now());
  const accepted = await calls.start("rest", apiKey, startBody());
  expect(accepted.status).toBe(200);
  await annotate(`429 with retryAfter ${retryAfter} s; accepted again ${Date.now() - blockedAt} ms after the block`);
});
