import { expect, test } from "vitest";
import { createKey } from "../helpers/admin-client.ts";
import { createEventEndpoint } from "../helpers/event-endpoints.ts";
import { createAccountWithKey, request, startAndEndCall } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// An endpoint receives the events of its own data kind only: what test keys
// do never goes to a production endpoint, and production data never to a test
// endpoint (a developer's receiver). Nothing is sent here (EVENTS_DELIVERY
// off: a production endpoint must be a public address): the outbox is what
// the worker sends, so an event with no row for an endpoint never reaches it.

const fixture = useTestServer({ env: { EVENTS_DELIVERY: "off" } });

const TYPES = ["intent.opened", "call.ended", "customer.erased"];

/** A call that opens an intent, made with `apiKey`; the customer's ref. */
async function endCall(apiKey: string, ani: string): Promise<string> {
  return (await startAndEndCall(fixture.server.url, apiKey, { ani }, { intent: "billing", intent_status: "open" }))
    .customerRef;
}

async function erase(apiKey: string, customerRef: string): Promise<void> {
  const erased = await request(fixture.server.url, "DELETE", `/v1/customers/${customerRef}`, { token: apiKey });
  expect(erased.status).toBe(200);
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

  const testCustomer = await endCall(testKey, "+14155550150");
  const prodCustomer = await endCall(prodKey, "+14155550151");
  const only = (types: readonly string[], mode: string, customerRef: string) =>
    types.map((type) => ({ type, mode, customerRef }));
  const byType = (a: { type: string }, b: { type: string }) => a.type.localeCompare(b.type);
  const ends = ["call.ended", "intent.opened"];
  expect((await outboxOf(testEndpoint.endpointId)).sort(byType)).toEqual(only(ends, "test", testCustomer));
  expect((await outboxOf(prodEndpoint.endpointId)).sort(byType)).toEqual(only(ends, "prod", prodCustomer));

  // An erasure takes the customer's earlier events with it (erased-customer-events.test.ts) and writes its own.
  await erase(testKey, testCustomer);
  await erase(prodKey, prodCustomer);
  expect(await outboxOf(testEndpoint.endpointId)).toEqual(only(["customer.erased"], "test", testCustomer));
  expect(await outboxOf(prodEndpoint.endpointId)).toEqual(only(["customer.erased"], "prod", prodCustomer));
});
