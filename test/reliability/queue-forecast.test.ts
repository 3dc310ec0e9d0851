import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CallClient, createCallClient, startBody, TRANSPORTS, uniqueCallId } from "../helpers/call-client.ts";
import { blockDatabase } from "../helpers/database-blocker.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// The queue forecast over the real wire: with the limit held full, a call
// that would join behind a head that has already waited more than half the
// queue's wait is refused at once, rather than after waiting for nothing.

const QUEUE_WAIT_MS = 2000;
let server: TestServer;
let calls: CallClient;

beforeAll(async () => {
  server = await startTestServer({
    env: {
      ADMISSION_INITIAL_LIMIT: "2",
      ADMISSION_MIN_LIMIT: "2",
      ADMISSION_MAX_LIMIT: "2",
      ADMISSION_QUEUE_SIZE: "4",
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

describe.each(TRANSPORTS)("a start over %s behind a queue that has not moved", (via) => {
  test("is refused at once, counted as queue_forecast, while the head still waits", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    // Two ends held in flight by a locked account row fill the limit.
    const started = [uniqueCallId(), uniqueCallId()];
    const refs: string[] = [];
    for (const callId of started) refs.push((await calls.start("rest", apiKey, startBody(callId))).body.customer_ref);
    const block = await blockDatabase(server, accountId, 4000);
    const ends = started.map((callId, i) => calls.end("rest", apiKey, { call_id: callId, customer_ref: refs[i] }));
    await until(() => server.context.admission.stats().inFlight === 2);

    const head = calls.start("rest", apiKey, startBody(uniqueCallId("head")));
    await until(() => server.context.admission.stats().queued === 1);
    // The head has waited more than half the wait: a second in line would outwait it.
    await sleep(QUEUE_WAIT_MS / 2 + 100);
    const before = server.context.admission.stats().refused.queue_forecast;
    const refused = await calls.start(via, apiKey, startBody(uniqueCallId("behind")));

    expect(refused.status).toBe(503);
    expect(refused.body.message).toMatch(/^Too many calls/);
    expect(server.context.admission.stats()).toMatchObject({ queued: 1 }); // answered before the head's wait ran out
    expect(server.context.admission.stats().refused.queue_forecast).toBe(before + 1);
    expect((await head).status).toBe(503);
    await block.lifted;
    for (const end of await Promise.all(ends)) expect(end.status).toBe(200);
  });
});
