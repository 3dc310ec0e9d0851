import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCli, runCliJson } from "../helpers/cli-runner.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// `caller-context events …` against a real server and a receiver that
// verifies every delivery with the Standard Webhooks package.

let server: TestServer;
let receiver: EventReceiver;

beforeAll(async () => {
  server = await startTestServer({ env: { EVENTS_POLL_MS: "20", EVENTS_RETRY_DELAYS_MS: "10,10,10" } });
  receiver = await startEventReceiver();
});
afterAll(async () => {
  await receiver.close();
  await server.stop();
});

const cli = (args: string[]) => runCli(server.url, args);
const cliJson = (args: string[]) => runCliJson(server.url, args);

describe("events", () => {
  test("create, test, deliveries, redeliver, disable, enable, roll-secret, list and delete an endpoint", async () => {
    const account = await cliJson(["accounts", "create", "--name", "Events desk"]);
    const created = await cliJson([
      "events",
      "create",
      "--account",
      account.account_id,
      "--url",
      receiver.url,
      "--types",
      "intent.opened, call.ended",
    ]);
    expect(created.endpoint).toMatchObject({
      url: receiver.url,
      kind: "test",
      event_types: ["intent.opened", "call.ended"],
      enabled: true,
    });
    expect(created.signing_secret).toMatch(/^whsec_/);
    receiver.secret = created.signing_secret;
    const endpointId = created.endpoint.endpoint_id;

    const sent = await cliJson(["events", "test", endpointId]);
    const [delivered] = await receiver.waitFor(1);
    expect(delivered).toMatchObject({ webhookId: sent.event_id, verified: true, payload: { type: "endpoint.test" } });
    const listed = await cli(["events", "deliveries", endpointId]);
    expect(listed.stdout).toMatch(/^DELIVERY\s+EVENT\s+TYPE\s+STATE/);
    expect(listed.stdout).toContain(sent.event_id);

    const again = await cliJson(["events", "redeliver", sent.delivery_id]);
    expect(again.event_id).toBe(sent.event_id);
    const [, redelivered] = await receiver.waitFor(2);
    expect(redelivered).toMatchObject({ webhookId: sent.event_id, verified: true });

    expect((await cliJson(["events", "disable", endpointId])).endpoint.enabled).toBe(false);
    expect((await cliJson(["events", "enable", endpointId])).endpoint.enabled).toBe(true);
    const rolled = await cliJson(["events", "roll-secret", endpointId, "--grace", "now"]);
    expect(rolled.signing_secret).toMatch(/^whsec_/);
    expect(rolled.signing_secret).not.toBe(created.signing_secret);

    const all = await cliJson(["events", "list", "--account", account.account_id]);
    expect(all.endpoints.map((endpoint: { endpoint_id: string }) => endpoint.endpoint_id)).toEqual([endpointId]);
    expect(JSON.stringify(all)).not.toContain(rolled.signing_secret);
    expect(await cliJson(["events", "delete", endpointId])).toEqual({ endpoint_id: endpointId, deleted: true });
    expect(await cliJson(["events", "list", "--account", account.account_id])).toEqual({ endpoints: [] });
  });

  test("without --types an endpoint receives every event type", async () => {
    const account = await cliJson(["accounts", "create", "--name", "All events"]);
    const created = await cliJson(["events", "create", "--account", account.account_id, "--url", receiver.url]);
    expect(created.endpoint.event_types).toEqual([
      "intent.opened",
      "intent.resolved",
      "call.ended",
      "customer.merged",
      "customer.erased",
      "credits.low",
    ]);
  });

  test("an unknown event type or grace is a usage error (exit 2) naming the choices", async () => {
    const badType = await cli([
      "events",
      "create",
      "--account",
      "acct_x",
      "--url",
      receiver.url,
      "--types",
      "call.rang",
    ]);
    expect([badType.code, badType.stderr]).toEqual([
      2,
      expect.stringMatching(/--types must be one of: intent\.opened/),
    ]);
    const badGrace = await cli(["events", "roll-secret", "ep_x", "--grace", "1y"]);
    expect([badGrace.code, badGrace.stderr]).toEqual([2, expect.stringMatching(/--grace must be one of: now, 1h/)]);
  });
});
