import { afterAll, beforeAll, expect, test } from "vitest";
import { createEventEndpoint } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, startAndEndCall } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// One customer's events reach an endpoint in the order they were written,
// even when the first fails and waits for its retry (docs/events.md,
// "Ordering"); another customer's events do not wait behind it.

/** Long enough for the later ends to be written while the first event waits for its second attempt. */
const RETRY_AFTER_MS = 2500;
const fixture = useTestServer({ env: { EVENTS_POLL_MS: "20", EVENTS_RETRY_DELAYS_MS: String(RETRY_AFTER_MS) } });

let receiver: EventReceiver;
beforeAll(async () => {
  receiver = await startEventReceiver();
});
afterAll(async () => {
  await receiver.close();
});

async function endOpening(apiKey: string, hints: object, intent: string): Promise<string> {
  return (await startAndEndCall(fixture.server.url, apiKey, hints, { intent, intent_status: "open" })).customerRef;
}

test("a customer's later event waits while the earlier one is retried; another customer's does not", async () => {
  const { accountId, apiKey } = await createAccountWithKey(fixture.server.url);
  const { secret } = await createEventEndpoint(fixture.server.url, accountId, {
    url: receiver.url,
    event_types: ["intent.opened"],
  });
  receiver.secret = secret;
  receiver.script("fail");
  const intentOf = (event: { payload: any }) => event.payload.data.intent as string;

  const customer = await endOpening(apiKey, { ani: "+14155550140" }, "first");
  await receiver.waitFor(1);
  // Written while "first" waits for its second attempt.
  await endOpening(apiKey, { customer_ref: customer }, "second");
  await endOpening(apiKey, { ani: "+14155550141" }, "other customer");
  const arrived = await receiver.waitFor(4);

  expect(arrived.every((event) => event.verified)).toBe(true);
  const ofCustomer = arrived.filter((event) => event.payload.data.customer_ref === customer);
  expect(ofCustomer.map((event) => [intentOf(event), event.answer])).toEqual([
    ["first", "fail"],
    ["first", "ok"],
    ["second", "ok"],
  ]);
  // The other customer's event, written after "second", went out while "first" was still waiting.
  expect(arrived.map(intentOf)).toEqual(["first", "other customer", "first", "second"]);
});
