import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createEventEndpoint, listEventDeliveries } from "../helpers/event-endpoints.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// An endpoint that accepts connections and never answers holds a worker slot
// for the delivery timeout at most: another endpoint's events still go out.

const fixture = useTestServer({
  env: { EVENTS_POLL_MS: "20", EVENTS_TIMEOUT_MS: "500", EVENTS_CONCURRENCY: "2", EVENTS_RETRY_DELAYS_MS: "60000" },
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

test("a hanging endpoint's deliveries time out and free the worker for another endpoint's", async () => {
  const { accountId } = await createAccountWithKey(fixture.server.url);
  const hanging = await createEventEndpoint(fixture.server.url, accountId, {
    url: `${origin}/hang`,
    event_types: ["call.ended"],
  });
  const answering = await createEventEndpoint(fixture.server.url, accountId, {
    url: `${origin}/ok`,
    event_types: ["call.ended"],
  });
  for (let i = 0; i < 4; i++) await sendTest(hanging.endpointId);
  while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  // Both slots hang now; the answering endpoint's event waits for one to time out, then goes.
  await sendTest(answering.endpointId);
  const began = performance.now();
  while (answered === 0 && performance.now() - began < 5_000) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(answered).toBe(1);
  const [delivered] = await listEventDeliveries(fixture.server.url, answering.endpointId);
  expect(delivered.state).toBe("delivered");
});
