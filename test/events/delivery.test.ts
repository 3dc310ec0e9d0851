import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { uniqueCallId } from "../helpers/call-client.ts";
import { createEventEndpoint, listEventDeliveries } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver, verifiesWith } from "../helpers/event-receiver.ts";
import { readMetricsText } from "../helpers/prometheus-text.ts";
import { createAccountWithKey, post, startAndEndCall } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Events over the real wire: an end writes them with its own statement, the
// worker delivers them signed per Standard Webhooks to a receiver verifying
// with the standardwebhooks package.

const fixture = useTestServer({
  // Retries a few milliseconds apart instead of seconds: the schedule's length, not its pace, is under test.
  env: { EVENTS_POLL_MS: "20", EVENTS_RETRY_DELAYS_MS: "10,10,10", EVENTS_TIMEOUT_MS: "2000" },
});

let receiver: EventReceiver;
beforeAll(async () => {
  receiver = await startEventReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** A fresh account with a test key and an endpoint to the receiver for `types`. */
async function accountWithEndpoint(types: string[], options: { includeVariableValues?: boolean } = {}) {
  const { accountId, apiKey } = await createAccountWithKey(fixture.server.url);
  const { endpointId, secret } = await createEventEndpoint(fixture.server.url, accountId, {
    url: receiver.url,
    event_types: types,
    include_variable_values: options.includeVariableValues ?? false,
  });
  receiver.secret = secret;
  return { accountId, apiKey, endpointId };
}

function startAndEnd(apiKey: string, end: object) {
  return startAndEndCall(fixture.server.url, apiKey, { ani: "+14155550123" }, end);
}

const forAccount = (accountId: string, type?: string) => (event: { payload: any }) =>
  event.payload?.account_id === accountId && (type === undefined || event.payload.type === type);

describe("an end that opens an intent", () => {
  test("delivers intent.opened, verified by the standardwebhooks package", async () => {
    const { accountId, apiKey } = await accountWithEndpoint(["intent.opened"]);
    const { callId, customerRef } = await startAndEnd(apiKey, { intent: "billing", intent_status: "open" });
    const [event] = await receiver.waitFor(1, forAccount(accountId));
    expect(event!.verified).toBe(true);
    expect(event!.webhookId).toBe(event!.payload.id);
    expect(event!.payload).toMatchObject({
      type: "intent.opened",
      account_id: accountId,
      mode: "test",
      api_version: expect.any(String),
      data: { customer_ref: customerRef, call_id: callId, intent: "billing", attempt_count: 1 },
    });
    expect(event!.payload.id).toMatch(/^evt_[0-9a-f]{32}$/);
  });

  test("an intent already open is not opened again; its resolution is intent.resolved with the attempts", async () => {
    const { accountId, apiKey } = await accountWithEndpoint(["intent.opened", "intent.resolved"]);
    const { customerRef } = await startAndEnd(apiKey, { intent: "refund", intent_status: "open" });
    const callId = uniqueCallId("evt");
    await post(fixture.server.url, "/v1/calls/start", apiKey, {
      call_id: callId,
      identity_hints: { customer_ref: customerRef },
    });
    await post(fixture.server.url, "/v1/calls/end", apiKey, {
      call_id: callId,
      customer_ref: customerRef,
      intent: "refund",
      intent_status: "open",
    });
    const third = uniqueCallId("evt");
    await post(fixture.server.url, "/v1/calls/start", apiKey, {
      call_id: third,
      identity_hints: { customer_ref: customerRef },
    });
    await post(fixture.server.url, "/v1/calls/end", apiKey, {
      call_id: third,
      customer_ref: customerRef,
      intent_updates: [
        { intent: "refund", status: "resolved", resolution: { type: "refunded", external_reference: "T-9" } },
      ],
    });
    const events = await receiver.waitFor(2, forAccount(accountId));
    expect(events.map((e) => e.payload.type)).toEqual(["intent.opened", "intent.resolved"]);
    expect(events[1]!.payload.data).toMatchObject({
      intent: "refund",
      attempt_count: 2,
      resolution: { type: "refunded", external_reference: "T-9" },
    });
  });
});

describe("call.ended", () => {
  test("names the variables it saved, without their values", async () => {
    const { accountId, apiKey } = await accountWithEndpoint(["call.ended"]);
    const { callId, customerRef } = await startAndEnd(apiKey, { variables: { plan: "gold" } });
    const [event] = await receiver.waitFor(1, forAccount(accountId));
    expect(event!.payload.data).toMatchObject({ call_id: callId, customer_ref: customerRef, variables: ["plan"] });
    expect(event!.payload.data.variable_values).toBeUndefined();
    expect(typeof event!.payload.data.duration_seconds).toBe("number");
  });

  test("carries the values for an endpoint that opted in", async () => {
    const { accountId, apiKey } = await accountWithEndpoint(["call.ended"], { includeVariableValues: true });
    await startAndEnd(apiKey, { variables: { plan: "gold" } });
    const [event] = await receiver.waitFor(1, forAccount(accountId));
    expect(event!.payload.data.variable_values).toEqual({ plan: "gold" });
  });

  test("an end refused (already ended) writes no event", async () => {
    const { accountId, apiKey, endpointId } = await accountWithEndpoint(["call.ended"]);
    const { callId, customerRef } = await startAndEnd(apiKey, {});
    const again = await post(fixture.server.url, "/v1/calls/end", apiKey, {
      call_id: callId,
      customer_ref: customerRef,
    });
    expect(again.status).toBe(409);
    await receiver.waitFor(1, forAccount(accountId));
    expect(await listEventDeliveries(fixture.server.url, endpointId)).toHaveLength(1);
  });
});

describe("a receiver that fails", () => {
  test("fails twice then succeeds: the event arrives three times with one id, and the outbox empties", async () => {
    const { accountId, apiKey, endpointId } = await accountWithEndpoint(["intent.opened"]);
    receiver.script("fail", "fail", "ok");
    await startAndEnd(apiKey, { intent: "callback", intent_status: "open" });
    const attempts = await receiver.waitFor(3, forAccount(accountId));
    expect(attempts.map((a) => a.answer)).toEqual(["fail", "fail", "ok"]);
    expect(new Set(attempts.map((a) => a.webhookId)).size).toBe(1);
    expect(attempts.every((a) => a.verified)).toBe(true);
    const deliveries = await waitUntil(
      () => listEventDeliveries(fixture.server.url, endpointId),
      (list) => list[0]?.state === "delivered",
    );
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ state: "delivered", attempts: 3, response_code: 204 });
    const metrics = readMetricsText(await (await fetch(new URL("/metrics", fixture.server.metricsUrl))).text());
    expect(metrics.value("event_outbox_pending")).toBe(0);
    expect(metrics.value("event_delivery_attempts_total", { outcome: "retrying" })).toBeGreaterThanOrEqual(2);
  });

  test("one that never succeeds is given up after the schedule, as failed", async () => {
    const { accountId, apiKey, endpointId } = await accountWithEndpoint(["intent.opened"]);
    receiver.script("fail", "fail", "fail", "fail");
    await startAndEnd(apiKey, { intent: "lost", intent_status: "open" });
    await receiver.waitFor(4, forAccount(accountId));
    const deliveries = await waitUntil(
      () => listEventDeliveries(fixture.server.url, endpointId),
      (list) => list[0]?.state !== "pending",
    );
    expect(deliveries[0]).toMatchObject({ state: "failed", attempts: 4, response_code: 500 });
  });
});

describe("a signing secret rolled with a grace", () => {
  const roll = async (endpointId: string, grace: string): Promise<string> => {
    const res = await post(fixture.server.url, `/admin/v1/event-endpoints/${endpointId}/roll-secret`, ADMIN_TOKEN, {
      grace,
    });
    expect(res.status).toBe(200);
    return res.body.signing_secret;
  };

  test("signs with the old secret and the new one until the grace ends, then with the new one alone", async () => {
    const { accountId, apiKey, endpointId } = await accountWithEndpoint(["intent.opened"]);
    const old = receiver.secret;
    const rolled = await roll(endpointId, "1h");
    receiver.secret = rolled;
    await startAndEnd(apiKey, { intent: "renewal", intent_status: "open" });
    const [during] = await receiver.waitFor(1, forAccount(accountId));
    expect(during!.headers["webhook-signature"]!.split(" ")).toEqual([
      expect.stringMatching(/^v1,/),
      expect.stringMatching(/^v1,/),
    ]);
    // A receiver still holding the old secret and one already holding the new one both accept it.
    expect(verifiesWith(during!, old)).toBe(true);
    expect(verifiesWith(during!, rolled)).toBe(true);

    // Rolled again with no grace: the secret rolled to above stops signing at once, and the first is long gone.
    const newest = await roll(endpointId, "now");
    receiver.secret = newest;
    await startAndEnd(apiKey, { intent: "upgrade", intent_status: "open" });
    const [, after] = await receiver.waitFor(2, forAccount(accountId));
    expect(after!.payload.data.intent).toBe("upgrade");
    expect(after!.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verifiesWith(after!, newest)).toBe(true);
    expect(verifiesWith(after!, rolled)).toBe(false);
    expect(verifiesWith(after!, old)).toBe(false);
  });
});

/** Polls `read` until `done` holds; the test's own timeout bounds it. */
async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
