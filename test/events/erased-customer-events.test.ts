import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterEach, describe, expect, test } from "vitest";
import { EVENT_TYPES } from "../../src/domain/events.ts";
import { uniqueCallId } from "../helpers/call-client.ts";
import { columnsHolding } from "../helpers/columns-holding.ts";
import { createEventEndpoint, listEventDeliveries } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// An erasure (and a forget-me, which erases) takes the customer's events with
// it: delivered or pending, to every endpoint, those of refs merged into them
// too. What stays is customer.erased, which carries the ref alone. Nothing
// pending about them is sent afterwards. Every column of every table is
// searched, as in erasure-leaves-nothing.test.ts.

const fixture = useTestServer({
  // A failed attempt is tried again a minute later: what it leaves pending stays still while the test looks.
  env: { EVENTS_POLL_MS: "20", EVENTS_RETRY_DELAYS_MS: "60000" },
});

const receivers: EventReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

/** An endpoint of the account for every type, with variable values, to a receiver of its own. */
async function endpointTo(accountId: string) {
  const receiver = await startEventReceiver();
  receivers.push(receiver);
  const { endpointId, secret } = await createEventEndpoint(fixture.server.url, accountId, {
    url: receiver.url,
    event_types: [...EVENT_TYPES],
    include_variable_values: true,
  });
  receiver.secret = secret;
  return { receiver, endpointId };
}

/** A call of a new customer that opens one intent, resolves another and saves a variable: three events. */
async function callWithEvents(apiKey: string, ani: string, mark: string) {
  const callId = uniqueCallId("erased");
  const started = await post(fixture.server.url, "/v1/calls/start", apiKey, {
    call_id: callId,
    identity_hints: { ani },
  });
  expect(started.status).toBe(200);
  const ended = await post(fixture.server.url, "/v1/calls/end", apiKey, {
    call_id: callId,
    customer_ref: started.body.customer_ref,
    intent_updates: [
      { intent: `open-${mark}`, status: "open" },
      { intent: `done-${mark}`, status: "resolved", resolution: { type: "ticket", external_reference: `T-${mark}` } },
    ],
    variable_updates: { note: { value: `value-${mark}` } },
  });
  expect(ended.status).toBe(200);
  return {
    ref: started.body.customer_ref as string,
    needles: [callId, `open-${mark}`, `done-${mark}`, `T-${mark}`, `value-${mark}`],
  };
}

async function waitForFailedAttempts(endpointId: string, count: number) {
  for (let i = 0; i < 400; i++) {
    const deliveries = await listEventDeliveries(fixture.server.url, endpointId);
    if (deliveries.filter((d) => d.response_code === 500).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`fewer than ${count} failed attempts recorded for ${endpointId}`);
}

const erasures = {
  erase: (apiKey: string, ref: string) =>
    request(fixture.server.url, "DELETE", `/v1/customers/${ref}`, { token: apiKey }),
  "forget-me": (apiKey: string, ref: string) => post(fixture.server.url, `/v1/customers/${ref}/forget-me`, apiKey, {}),
};

describe.each(Object.keys(erasures) as (keyof typeof erasures)[])("%s", (how) => {
  test("leaves no event of the customer but customer.erased, and sends nothing pending about them", async () => {
    const db = fixture.server.context.database.db;
    const marker = randomUUID().slice(0, 8);
    const { accountId, apiKey } = await createAccountWithKey(fixture.server.url);
    const answered = await endpointTo(accountId);
    const refused = await endpointTo(accountId);
    refused.receiver.otherwise = "fail";

    const customer = await callWithEvents(apiKey, "+14155550141", `c-${marker}`);
    const merged = await callWithEvents(apiKey, "+14155550142", `m-${marker}`);
    const merge = await post(fixture.server.url, `/v1/customers/${customer.ref}/merge`, apiKey, {
      from: merged.ref,
    });
    expect(merge.status).toBe(200);
    // Seven events each: three per call and the merge. The refusing endpoint's first attempt of each customer
    // fails; the rest wait behind it (one customer's events go in order) and stay pending.
    await answered.receiver.waitFor(7);
    await waitForFailedAttempts(refused.endpointId, 2);
    const needles = [...customer.needles, ...merged.needles, merged.ref];
    expect(await columnsHolding(db, [...needles, customer.ref])).toContain("event_deliveries.payload");

    refused.receiver.otherwise = "ok";
    const attemptsBefore = refused.receiver.received.length;
    expect((await erasures[how](apiKey, customer.ref)).status).toBe(200);

    for (const { endpointId } of [answered, refused]) {
      const kept = await listEventDeliveries(fixture.server.url, endpointId);
      expect(kept.map((d) => d.event_type)).toEqual(["customer.erased"]);
    }
    // The contact figures' counts may hold the intents' names (the account's topics, docs/analytics.md), once
    // their job has counted the calls; nothing else.
    expect((await columnsHolding(db, needles)).filter((column) => column !== "contact_figures_days.intent")).toEqual(
      [],
    );
    const { rows } = await sql<{ event_type: string; payload: string }>`
      select event_type, payload from event_deliveries
      where ordering_key = ${customer.ref} or position(${customer.ref} in payload) > 0
    `.execute(db);
    expect(rows.map((row) => row.event_type)).toEqual(["customer.erased", "customer.erased"]);
    for (const row of rows) expect(JSON.parse(row.payload).data).toEqual({ customer_ref: customer.ref });

    // customer.erased goes after every earlier pending event of its customer and endpoint: once it is
    // delivered, none of those is left to send.
    const isErased = (event: { payload: any }) => event.payload?.type === "customer.erased";
    await answered.receiver.waitFor(1, isErased);
    const [erased] = await refused.receiver.waitFor(1, isErased);
    expect(erased!.verified).toBe(true);
    expect(refused.receiver.received.slice(attemptsBefore).map((e) => e.payload.type)).toEqual(["customer.erased"]);
  });
});
