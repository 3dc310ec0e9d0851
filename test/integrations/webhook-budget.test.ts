import { randomUUID } from "node:crypto";
import { expect, test } from "vitest";
import { quotaOf } from "../helpers/admin-client.ts";
import { blockDatabase } from "../helpers/database-blocker.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN, startTestServer } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";
import { PLATFORM_CASES, type PlatformCase } from "./platform-case.ts";
import { connectPlatform, platformSender } from "./platform-sender.ts";

const BUDGET_MS = 300;
const fixture = useTestServer({ env: { START_BUDGET_MS: String(BUDGET_MS) } });

test("an inbound webhook past the start budget answers a valid no-context reply, and bills nothing", async () => {
  const { url } = fixture.server;
  const { accountId } = await createAccountWithKey(url, { tier: "growth" });
  const created = await post(url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
    platform: "twilio_studio",
    name: "Front desk",
    end_of_call: { variable_fields: ["order_number"] },
  });
  const inbound = () =>
    request(url, "POST", created.body.integration.webhook_path, {
      rawBody: JSON.stringify({
        event: "inbound",
        call_sid: `CA${randomUUID()}`,
        from: "+13105550188",
        to: "+13105550100",
      }),
      headers: { authorization: `Bearer ${created.body.webhook_secret}` },
    });
  expect((await inbound()).status).toBe(200);
  const credits = await quotaOf(url, accountId);
  // Once more just before the block: the integration is then in this instance's half-second credential cache.
  expect((await inbound()).status).toBe(200);

  const block = await blockDatabase(fixture.server, accountId, 1500);
  const began = performance.now();
  const res = await inbound();
  const tookMs = performance.now() - began;
  await block.lifted;

  expect(res.status).toBe(200);
  expect(tookMs).toBeLessThan(1000);
  expect(res.body).toEqual({
    customer_ref: "",
    identity_confidence: "",
    identity_level: "",
    identity_recommendation: "",
    open_intents: "",
    last_call_summary: "",
    held_back_variables: "",
    var_order_number: "",
    caller_context: expect.stringContaining("No caller context"),
    no_context_reason: "timeout",
  });
  expect(await quotaOf(url, accountId)).toBe(credits - 1);
});

test("a Telnyx inbound call gets its 'no context' answer within Telnyx's own 1 s, whatever the start budget", async () => {
  const server = await startTestServer({ env: { START_BUDGET_MS: "5000" } });
  try {
    const telnyx = PLATFORM_CASES.find((platform) => platform.platform === "telnyx") as PlatformCase;
    const vapi = PLATFORM_CASES.find((platform) => platform.platform === "vapi") as PlatformCase;
    const toTelnyx = await connectPlatform(server.url, telnyx);
    // Vapi on the same account, so one held account holds both calls on either database.
    const created = await post(server.url, `/admin/v1/accounts/${toTelnyx.accountId}/integrations`, ADMIN_TOKEN, {
      platform: "vapi",
      name: "Vapi line",
      ...vapi.create,
    });
    const toVapi = platformSender(server.url, vapi, {
      accountId: toTelnyx.accountId,
      path: created.body.integration.webhook_path,
      webhookSecret: created.body.webhook_secret,
    });
    // The integrations in the instance's half-second credential cache, just before the database is held.
    await Promise.all([toTelnyx.inbound(), toVapi.inbound()]);
    const block = await blockDatabase(server, toTelnyx.accountId, 1500);
    const [fromTelnyx, fromVapi] = await Promise.all([toTelnyx.inbound(), toVapi.inbound()]);
    await block.lifted;
    // Held past 700 ms, Telnyx's call goes ahead without context; Vapi's, with 5 s to spare, waited and got it.
    expect(telnyx.variablesOf(fromTelnyx.body).no_context_reason).toBe("timeout");
    expect(vapi.variablesOf(fromVapi.body).no_context_reason).toBe("");
    expect(vapi.variablesOf(fromVapi.body).customer_ref).not.toBe("");
  } finally {
    await server.stop();
  }
});
