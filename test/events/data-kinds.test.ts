import { expect, test } from "vitest";
import { createKey } from "../helpers/admin-client.ts";
import { uniqueCallId } from "../helpers/call-client.ts";
import { createEventEndpoint } from "../helpers/event-endpoints.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// An endpoint receives the events of its own data kind only: what test keys
// do never goes to a production endpoint, and production data never to a test
// endpoint (a developer's receiver). Nothing is sent here (EVENTS_DELIVERY
// off: a production endpoint must be a public address): the outbox is what
// the worker sends, so an event with no row for an endpoint never reaches it.

const fixture = useTestServer({ env: { EVENTS_DELIVERY: "off" } });

const TYPES = ["intent.opened", "call.ended", "customer.erased"];

/** A call that opens an intent, then the erasure of its customer, made with `apiKey`; the customer's ref. */
async function endAndErase(apiKey: string, ani: string): Promise<string> {
  const callId = uniqueCallId("kind");
  const started = await post(fixture.server.url, "/v1/calls/start", apiKey, {
    call_id: callId,
    identity_hints: { ani },
  });
  expect(started.status).toBe(200);
  const customerRef = started.body.customer_ref as string;
  const ended = await post(fixture.server.url, "/v1/calls/end", apiKey, {
    call_id: callId,
    customer_ref: customerRef,
    intent: "billing",
    intent_status: "open",
  });
  expect(ended.status).toBe(200);
  const erased = await request(fixture.server.url, "DELETE", `/v1/customers/${customerRef}`, { token: apiKey });
  expect(erased.status).toBe(200);
  return customerRef;
}

/** The events written for an endpoint, as the worker would send them. */
async function outboxOf(endpointId: string) {
  const rows = await fixture.server.context.database.db
    .selectFrom("event_deliveries")
    .select(["event_type", "payload"])
    .where("endpoint_id", "=", endpointId)
    .execute();
  return rows.map((row) => {
    const payload = JSON.parse(row.payload);
    return { type: row.event_type, mode: payload.mode, customerRef: payload.data.customer_ref };
  });
}

test("test data's events go to test endpoints only, production data's to production endpoints only", async () => {
  const { accountId, apiKey: testKey } = await createAccountWithKey(fixture.server.url);
  const { apiKey: prodKey } = await createKey(fixture.server.url, accountId, "prod");
  const testEndpoint = await createEventEndpoint(fixture.server.url, accountId, {
    url: "http://127.0.0.1:9/test-data",
    kind: "test",
    event_types: TYPES,
  });
  const prodEndpoint = await createEventEndpoint(fixture.server.url, accountId, {
    url: "https://1.1.1.1/production-data",
    kind: "prod",
    event_types: TYPES,
  });

  const testCustomer = await endAndErase(testKey, "+14155550150");
  const prodCustomer = await endAndErase(prodKey, "+14155550151");

  const expected = (mode: string, customerRef: string) =>
    expect.arrayContaining(TYPES.map((type) => ({ type, mode, customerRef })));
  const toTest = await outboxOf(testEndpoint.endpointId);
  expect(toTest).toHaveLength(TYPES.length);
  expect(toTest).toEqual(expected("test", testCustomer));
  const toProd = await outboxOf(prodEndpoint.endpointId);
  expect(toProd).toHaveLength(TYPES.length);
  expect(toProd).toEqual(expected("prod", prodCustomer));
});
