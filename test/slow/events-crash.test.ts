import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { uniqueCallId } from "../helpers/call-client.ts";
import { createEventEndpoint, listEventDeliveries } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// The service killed (SIGKILL, no shutdown) after an end committed and while
// its event was on the way: the event is in the outbox, and the restarted
// service delivers it, with the same id. On PostgreSQL when DATABASE_URL is
// set, otherwise on an embedded database in a directory that outlives the process.

let database: TestDatabase | undefined;
let dataDir: string | undefined;
let receiver: EventReceiver;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  receiver = await startEventReceiver();
  if (process.env.DATABASE_URL) database = await createTestDatabase();
  else dataDir = await mkdtemp(join(tmpdir(), "cc-events-"));
});
afterAll(async () => {
  await Promise.all(servers.filter((s) => s.running()).map((s) => s.stop()));
  await receiver.close();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const env = () => ({
  ...(database ? database.env : { DATA_DIR: dataDir! }),
  EVENTS_POLL_MS: "50",
  // The lease outlives the timeout by 5 s: a delivery cut by the crash is claimed again that long after.
  EVENTS_TIMEOUT_MS: "1000",
});

test("kill -9 between the commit and the delivery: the restarted service delivers the event", async () => {
  const first = await startServerProcess(env());
  servers.push(first);
  const { accountId, apiKey } = await createAccountWithKey(first.url);
  const { endpointId, secret } = await createEventEndpoint(first.url, accountId, {
    url: receiver.url,
    event_types: ["intent.opened"],
  });
  receiver.secret = secret;
  // The first attempt is held unanswered: the end has committed, the delivery has not completed.
  receiver.script("hang");
  const callId = uniqueCallId("crash");
  const started = await post(first.url, "/v1/calls/start", apiKey, {
    call_id: callId,
    identity_hints: { ani: "+14155550199" },
  });
  const ended = await post(first.url, "/v1/calls/end", apiKey, {
    call_id: callId,
    customer_ref: started.body.customer_ref,
    intent: "billing",
    intent_status: "open",
  });
  expect(ended.status).toBe(200);
  const [held] = await receiver.waitFor(1);
  first.kill("SIGKILL");
  expect((await first.exited).signal).toBe("SIGKILL");

  const second = await startServerProcess(env());
  servers.push(second);
  const [, delivered] = await receiver.waitFor(2);
  expect(delivered!.answer).toBe("ok");
  expect(delivered!.verified).toBe(true);
  expect(delivered!.webhookId).toBe(held!.webhookId);
  expect(delivered!.payload).toMatchObject({ type: "intent.opened", data: { call_id: callId } });
  for (;;) {
    const [delivery] = await listEventDeliveries(second.url, endpointId);
    if (delivery?.state === "delivered") {
      expect(delivery.attempts).toBe(2);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
