import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createEventEndpoint, listEventDeliveries } from "../helpers/event-endpoints.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// An endpoint that accepts connections and never answers holds a worker slot
// for the delivery timeout at most, and while others have due work it gets no
// more than its share of the slots: another endpoint's events go out at the
// first free slot, not after the hanging endpoint's backlog.

const CONCURRENCY = 4; // a share of 1 slot per endpoint
const fixture = useTestServer({
  env: {
    EVENTS_POLL_MS: "20",
    EVENTS_TIMEOUT_MS: "500",
    EVENTS_CONCURRENCY: String(CONCURRENCY),
    EVENTS_RETRY_DELAYS_MS: "60000",
  },
});
const held: http.ServerResponse[] = [];
let answered = 0;
let receiver: http.Server;
let origin: string;

beforeAll(async () => {
  receiver = http
    .createServer((req, res) => {
      if (req.url === "/hang") held.push(res);
      else {
        answered++;
        req.resume();
        res.writeHead(204).end();
      }
    })
    .listen(0, "127.0.0.1");
  await new Promise((resolve) => receiver.once("listening", resolve));
  origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const sendTest = (endpointId: string) =>
  post(fixture.server.url, `/admin/v1/event-endpoints/${endpointId}/test`, ADMIN_TOKEN, {});

test("a hanging endpoint's backlog does not hold up another endpoint: its event goes at the first free slot", async () => {
  const { accountId } = await createAccountWithKey(fixture.server.url);
  const hanging = await createEventEndpoint(fixture.server.url, accountId, {
    url: `${origin}/hang`,
    event_types: ["call.ended"],
  });
  const answering = await createEventEndpoint(fixture.server.url, accountId, {
    url: `${origin}/ok`,
    event_types: ["call.ended"],
  });
  // Three slots' worth of backlog behind the ones that hang: alone, the endpoint may use every slot.
  for (let i = 0; i < 4 * CONCURRENCY; i++) await sendTest(hanging.endpointId);
  while (held.length < CONCURRENCY) await new Promise((resolve) => setTimeout(resolve, 20));
  await sendTest(answering.endpointId);
  // The receiver counts the request when it arrives; the worker records it once the answer is read.
  const began = performance.now();
  let delivered = (await listEventDeliveries(fixture.server.url, answering.endpointId))[0];
  while (delivered?.state !== "delivered" && performance.now() - began < 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    delivered = (await listEventDeliveries(fixture.server.url, answering.endpointId))[0];
  }
  expect(answered).toBe(1);
  expect(delivered.state).toBe("delivered");
  // Delivered while the hanging endpoint still had untried deliveries, older than this one.
  const backlog = await listEventDeliveries(fixture.server.url, hanging.endpointId);
  expect(backlog.filter((delivery) => delivery.attempts === 0).length).toBeGreaterThanOrEqual(CONCURRENCY);
});
