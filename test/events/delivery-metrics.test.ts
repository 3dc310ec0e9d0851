import { afterAll, beforeAll, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { uniqueCallId } from "../helpers/call-client.ts";
import { createEventEndpoint } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { readMetricsText } from "../helpers/prometheus-text.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// The delivery metrics docs/events.md names, read from /metrics while one
// delivery waits for its retry, then fails for good and its endpoint is
// disabled: the outbox's age, attempts by outcome, their durations, endpoints
// disabled. The clock stands still unless the test moves it, so the age is exact.

const HOUR = 60 * 60 * 1000;
const clock = createManualClock(new Date());
const fixture = useTestServer({
  clock,
  // Two attempts an hour apart; disabled after two failures in a row spanning the default day.
  env: { EVENTS_POLL_MS: "20", EVENTS_RETRY_DELAYS_MS: String(HOUR), EVENTS_DISABLE_AFTER_FAILURES: "2" },
});

let receiver: EventReceiver;
beforeAll(async () => {
  receiver = await startEventReceiver();
  receiver.otherwise = "fail";
});
afterAll(async () => {
  await receiver.close();
});

async function scrape() {
  return readMetricsText(await (await fetch(new URL("/metrics", fixture.server.metricsUrl))).text());
}

test("the outbox's age, failed attempts, their durations and disabled endpoints are counted", async () => {
  const { accountId, apiKey } = await createAccountWithKey(fixture.server.url);
  const { secret } = await createEventEndpoint(fixture.server.url, accountId, {
    url: receiver.url,
    event_types: ["intent.opened"],
  });
  receiver.secret = secret;
  const callId = uniqueCallId("metrics");
  const started = await post(fixture.server.url, "/v1/calls/start", apiKey, {
    call_id: callId,
    identity_hints: { ani: "+14155550170" },
  });
  await post(fixture.server.url, "/v1/calls/end", apiKey, {
    call_id: callId,
    customer_ref: started.body.customer_ref,
    intent: "billing",
    intent_status: "open",
  });
  await receiver.waitFor(1);
  await expect
    .poll(async () => (await scrape()).value("event_delivery_attempts_total", { outcome: "retrying" }))
    .toBe(1);

  clock.advance(90_000);
  const waiting = await scrape();
  expect(waiting.value("event_outbox_pending")).toBe(1);
  expect(waiting.value("event_outbox_oldest_age_seconds")).toBe(90);
  expect(waiting.value("event_delivery_attempts_total", { outcome: "failed" })).toBe(0);
  expect(waiting.value("event_endpoints_disabled_total")).toBe(0);

  // A day on: the second and last attempt fails, the second failure in a row over a day.
  clock.advance(24 * HOUR);
  await receiver.waitFor(2);
  await expect.poll(async () => (await scrape()).value("event_endpoints_disabled_total")).toBe(1);
  const done = await scrape();
  expect(done.value("event_delivery_attempts_total", { outcome: "failed" })).toBe(1);
  expect(done.value("event_delivery_attempts_total", { outcome: "retrying" })).toBe(1);
  expect(done.value("event_delivery_attempts_total", { outcome: "delivered" })).toBe(0);
  expect(done.value("event_delivery_duration_seconds_count")).toBe(2);
  expect(done.value("event_outbox_pending")).toBe(0);
  expect(done.value("event_outbox_oldest_age_seconds")).toBe(0);
  const endpoints = await request(fixture.server.url, "GET", `/admin/v1/accounts/${accountId}/event-endpoints`, {
    token: ADMIN_TOKEN,
  });
  expect(endpoints.body.endpoints[0]).toMatchObject({
    enabled: false,
    disabled_reason: expect.stringMatching(
      /^Disabled after 2 failed deliveries in a row since \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    ),
  });
});
