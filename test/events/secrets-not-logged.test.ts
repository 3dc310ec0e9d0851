import { afterAll, beforeAll, expect, test } from "vitest";
import { createEventEndpoint, listEventDeliveries } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, post, request, startAndEndCall } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// docs/events.md: "secrets are never logged". An endpoint's signing secrets
// (as made, and as rolled), the API key and the admin token do not appear in
// the server's log through an endpoint's life: made, rolled, delivered to,
// failing until given up and disabled.

const fixture = useTestServer({
  // Two attempts a few milliseconds apart, and an endpoint disabled after two failures in a row at once, so the
  // failure path's own log line is written within the test.
  env: {
    EVENTS_POLL_MS: "20",
    EVENTS_RETRY_DELAYS_MS: "10",
    EVENTS_DISABLE_AFTER_FAILURES: "2",
    EVENTS_DISABLE_AFTER_MS: "0",
  },
});

let receiver: EventReceiver;
beforeAll(async () => {
  receiver = await startEventReceiver();
});
afterAll(async () => {
  await receiver.close();
});

async function endOpening(apiKey: string, intent: string) {
  await startAndEndCall(fixture.server.url, apiKey, { ani: "+14155550160" }, { intent, intent_status: "open" });
}

test("no secret reaches the log while an endpoint is made, rolled, delivered to and fails", async () => {
  const { accountId, apiKey } = await createAccountWithKey(fixture.server.url);
  const { endpointId, secret: first } = await createEventEndpoint(fixture.server.url, accountId, {
    url: receiver.url,
    event_types: ["intent.opened"],
  });
  const rolled = await post(fixture.server.url, `/admin/v1/event-endpoints/${endpointId}/roll-secret`, ADMIN_TOKEN, {
    grace: "1h",
  });
  expect(rolled.status).toBe(200);
  const second: string = rolled.body.signing_secret;
  receiver.secret = second;

  await endOpening(apiKey, "billing");
  const [delivered] = await receiver.waitFor(1);
  expect(delivered!.verified).toBe(true);

  receiver.script("fail", "fail");
  await endOpening(apiKey, "refund");
  await receiver.waitFor(3);
  await expect
    .poll(async () => (await listEventDeliveries(fixture.server.url, endpointId)).map((d) => d.state))
    .toEqual(["failed", "delivered"]);
  const endpoints = await request(fixture.server.url, "GET", `/admin/v1/accounts/${accountId}/event-endpoints`, {
    token: ADMIN_TOKEN,
  });
  expect(endpoints.body.endpoints[0].enabled).toBe(false);

  const log = fixture.server.logLines.join("\n");
  // The log saw all of it: the endpoint's requests, and the worker's line when it disabled the endpoint.
  expect(log).toContain(`/admin/v1/accounts/${accountId}/event-endpoints`);
  expect(log).toContain(`/admin/v1/event-endpoints/${endpointId}/roll-secret`);
  expect(fixture.server.logLines.some((line) => line.includes(endpointId) && line.includes("disabled"))).toBe(true);
  const secrets = [first, second, ...[first, second].map((s) => s.slice("whsec_".length)), apiKey, ADMIN_TOKEN];
  for (const secret of secrets) {
    expect(log.includes(secret), `a secret in the log: ${secret.slice(0, 10)}…`).toBe(false);
  }
});
