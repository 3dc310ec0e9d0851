import { afterAll, beforeAll, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { FINISHED_DELIVERY_RETENTION_DAYS } from "../../src/domain/events.ts";
import { sweepOnce } from "../../src/jobs/sweeper.ts";
import { createEventEndpoint, listEventDeliveries } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Finished deliveries (their payloads may carry a caller's variables) leave
// the database 30 days after they were written; pending ones stay whatever
// their age, so nothing not yet delivered is lost.

const DAY = 24 * 60 * 60 * 1000;
const clock = createManualClock(new Date());
const fixture = useTestServer({ clock, env: { EVENTS_POLL_MS: "20" } });
let receiver: EventReceiver;

beforeAll(async () => {
  receiver = await startEventReceiver();
});
afterAll(() => receiver.close());

const sendTestEvent = (endpointId: string) =>
  post(fixture.server.url, `/admin/v1/event-endpoints/${endpointId}/test`, ADMIN_TOKEN, {});

async function waitForState(endpointId: string, state: string) {
  for (let i = 0; i < 200; i++) {
    const [delivery] = await listEventDeliveries(fixture.server.url, endpointId);
    if (delivery?.state === state) return delivery;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no ${state} delivery for ${endpointId}`);
}

test(`a delivered event is swept after ${FINISHED_DELIVERY_RETENTION_DAYS} days; one still pending is kept`, async () => {
  const { accountId } = await createAccountWithKey(fixture.server.url);
  const delivered = await createEventEndpoint(fixture.server.url, accountId, {
    url: receiver.url,
    event_types: ["call.ended"],
  });
  receiver.secret = delivered.secret;
  expect((await sendTestEvent(delivered.endpointId)).status).toBe(200);
  await waitForState(delivered.endpointId, "delivered");

  // An endpoint switched off holds its deliveries pending until it is on again.
  const paused = await createEventEndpoint(fixture.server.url, accountId, {
    url: receiver.url,
    event_types: ["call.ended"],
  });
  const off = await post(fixture.server.url, `/admin/v1/event-endpoints/${paused.endpointId}/enabled`, ADMIN_TOKEN, {
    enabled: false,
  });
  expect(off.status).toBe(200);
  expect((await sendTestEvent(paused.endpointId)).status).toBe(200);
  await waitForState(paused.endpointId, "pending");

  const db = fixture.server.context.database.db;
  clock.advance((FINISHED_DELIVERY_RETENTION_DAYS - 1) * DAY);
  expect((await sweepOnce(db, clock.now(), 1000, fixture.server.config.monthlyQuota))?.eventDeliveries).toBe(0);
  clock.advance(DAY + 1);
  expect((await sweepOnce(db, clock.now(), 1000, fixture.server.config.monthlyQuota))?.eventDeliveries).toBe(1);
  expect(await listEventDeliveries(fixture.server.url, delivered.endpointId)).toEqual([]);
  expect(await listEventDeliveries(fixture.server.url, paused.endpointId)).toEqual([
    expect.objectContaining({ state: "pending" }),
  ]);
});
