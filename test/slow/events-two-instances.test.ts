import { afterAll, beforeAll, expect, test } from "vitest";
import { uniqueCallId } from "../helpers/call-client.ts";
import { createEventEndpoint, listEventDeliveries } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// Two instances, as separate processes on one PostgreSQL database, both
// running the delivery worker on the same outbox: every event is delivered,
// and each only once (SKIP LOCKED claims; one attempt per delivery).

const EVENTS = 40;

let database: TestDatabase | undefined;
let receiver: EventReceiver;
const instances: ServerProcess[] = [];

beforeAll(async () => {
  if (!process.env.DATABASE_URL) {
    throw new Error(
      "Two instances need a shared PostgreSQL; set DATABASE_URL, e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres",
    );
  }
  receiver = await startEventReceiver();
  database = await createTestDatabase();
  // Both poll often, so they race for the same rows.
  // Admission and budgets as in two-instances.test.ts: what is proved is delivery, not how a busy box answers.
  const env = {
    ...database.env,
    EVENTS_POLL_MS: "10",
    EVENTS_CONCURRENCY: "4",
    ADMISSION_INITIAL_LIMIT: "10000",
    ADMISSION_MIN_LIMIT: "10000",
    ADMISSION_MAX_LIMIT: "10000",
    ADMISSION_MAX_EVENT_LOOP_DELAY_MS: "0",
    START_BUDGET_MS: "30000",
  };
  instances.push(...(await Promise.all([startServerProcess(env), startServerProcess(env)])));
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await receiver?.close();
  await database?.drop();
});

test("two instances deliver each event once", async () => {
  const [a, b] = instances;
  const { accountId, apiKey } = await createAccountWithKey(a!.url);
  const { endpointId, secret } = await createEventEndpoint(a!.url, accountId, {
    url: receiver.url,
    event_types: ["call.ended"],
  });
  receiver.secret = secret;
  await Promise.all(
    Array.from({ length: EVENTS }, async (_, i) => {
      const url = (i % 2 === 0 ? a : b)!.url;
      const callId = uniqueCallId("two");
      const started = await post(url, "/v1/calls/start", apiKey, {
        call_id: callId,
        identity_hints: { ani: `+1415555${String(1000 + i)}` },
      });
      expect(started.status).toBe(200);
      const ended = await post(url, "/v1/calls/end", apiKey, {
        call_id: callId,
        customer_ref: started.body.customer_ref,
      });
      expect(ended.status).toBe(200);
    }),
  );
  const received = await receiver.waitFor(EVENTS);
  expect(received.every((event) => event.verified)).toBe(true);
  for (;;) {
    const deliveries = await listEventDeliveries(a!.url, endpointId);
    if (deliveries.length === EVENTS && deliveries.every((d) => d.state === "delivered")) {
      // A delivery claimed twice would count two attempts.
      expect(deliveries.map((d) => d.attempts)).toEqual(Array(EVENTS).fill(1));
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(receiver.received).toHaveLength(EVENTS);
  expect(new Set(receiver.received.map((event) => event.webhookId)).size).toBe(EVENTS);
});
