import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, test } from "vitest";
import { quotaOf } from "../helpers/admin-client.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";
import { PLATFORM_CASES } from "./platform-case.ts";
import { connectPlatform, newCallId, type PlatformSender } from "./platform-sender.ts";
import { TELNYX_KEYS } from "./telnyx-signing.ts";

// Each platform's documented example payloads, replayed over real HTTP.

const fixture = useTestServer();

const BASE_VARIABLES = [
  "caller_context",
  "customer_ref",
  "held_back_variables",
  "identity_confidence",
  "identity_level",
  "identity_recommendation",
  "last_call_summary",
  "no_context_reason",
  "open_intents",
];

describe.each(PLATFORM_CASES)("$platform webhooks", (platform) => {
  let sender: PlatformSender;
  beforeAll(async () => {
    sender = await connectPlatform(fixture.server.url, platform);
  });
  const credits = () => quotaOf(fixture.server.url, sender.accountId);

  test("inbound answers in the platform's shape with every declared variable as a string", async () => {
    const callId = newCallId();
    const res = await sender.inbound(callId);
    expect(res.status).toBe(200);
    const variables = platform.variablesOf(res.body);
    const generated = res.body.call_inbound?.metadata?.caller_context_call_id;
    expect(platform.envelope(res.body, callId)).toEqual(platform.expectedEnvelope(generated ?? callId));
    expect(Object.keys(variables).sort()).toEqual(
      [...BASE_VARIABLES, platform.saved.variable, "var_call_summary"].sort(),
    );
    for (const value of Object.values(variables)) expect(typeof value).toBe("string");
    expect(variables.customer_ref).toMatch(/^[0-9a-f-]{36}$/);
    expect(variables.identity_recommendation).toBe("ignore");
    expect(variables[platform.saved.variable]).toBe("");
  });

  test("an end-of-call report saves intent and variables the next inbound returns; a retry bills once", async () => {
    const callId = newCallId();
    const first = await sender.inbound(callId);
    const before = await credits();
    const payload = sender.endPayload(callId, first.body);
    const ended = await sender.send(payload, "end");
    expect(ended.status).toBe(200);
    expect(ended.body.status).toBe("saved");
    expect(await credits()).toBe(before - 1);

    const retried = await sender.send(payload, "end");
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe("already_saved");
    expect(await credits()).toBe(before - 1);

    const next = platform.variablesOf((await sender.inbound()).body);
    expect(next.open_intents).toBe(`${platform.saved.intent} (1 attempt)`);
    expect(next[platform.saved.variable]).toBe(platform.saved.value);
    expect(next.var_call_summary).not.toBe("");
    expect(next.customer_ref).toBe(platform.variablesOf(first.body).customer_ref);
    expect(next.caller_context).toContain(platform.saved.intent);
  });

  test("a bad or missing credential gets 401 in the error shape and saves nothing", async () => {
    const before = await credits();
    const callId = newCallId();
    for (const kind of ["inbound", "end"] as const) {
      const payload =
        kind === "inbound"
          ? platform.inbound.replaceAll(platform.fixtureCallId ?? "\u0000", callId)
          : sender.endPayload(callId, { call_inbound: { metadata: { caller_context_call_id: callId } } });
      for (const how of [{ bad: true }, { unsigned: true }]) {
        const res = await sender.send(payload, kind, how);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: "Unauthorized", message: "Invalid or missing webhook signature" });
      }
    }
    expect(await credits()).toBe(before);
  });
});

describe("webhook URLs", () => {
  test("an unknown webhook id is refused like a bad signature", async () => {
    const res = await request(fixture.server.url, "POST", `/v1/integrations/wh_${"x".repeat(32)}`, {
      rawBody: "{}",
      headers: { authorization: "Bearer whsec_anything" },
    });
    expect(res.status).toBe(401);
  });

  test("integrations are listed without secrets and stop answering as soon as they are deleted", async () => {
    const { accountId } = await createAccountWithKey(fixture.server.url);
    const created = await post(fixture.server.url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
      platform: "twilio_studio",
      name: "Front desk",
    });
    const listed = await request(fixture.server.url, "GET", `/admin/v1/accounts/${accountId}/integrations`, {
      token: ADMIN_TOKEN,
    });
    expect(listed.body.integrations).toEqual([created.body.integration]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.webhook_secret);
    const { integration_id, webhook_path } = created.body.integration;
    const inbound = (callSid: string) =>
      request(fixture.server.url, "POST", webhook_path, {
        rawBody: JSON.stringify({ event: "inbound", call_sid: callSid, from: "+13105550111", to: "+13105550100" }),
        headers: { authorization: `Bearer ${created.body.webhook_secret}` },
      });
    // Answered first, so this instance has the integration in its short-lived cache.
    expect((await inbound("CA1")).status).toBe(200);
    const deleted = await post(fixture.server.url, `/admin/v1/integrations/${integration_id}/delete`, ADMIN_TOKEN, {});
    expect(deleted.body).toEqual({ integration_id, deleted: true });
    expect((await inbound("CA2")).status).toBe(401);
  });

  test("a platform that signs cannot be created without its signing secret", async () => {
    const { accountId } = await createAccountWithKey(fixture.server.url);
    const res = await post(fixture.server.url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
      platform: "retell",
      name: "Support",
    });
    expect(res.status).toBe(400);
    expect(res.body.issues ?? res.body).toBeDefined();
  });
});

describe("Telnyx's public key", () => {
  test("is required at creation in Telnyx's form, the base64 of 32 bytes, with a 400 naming signing_secret", async () => {
    const { accountId } = await createAccountWithKey(fixture.server.url);
    const create = (signing_secret?: string) =>
      post(fixture.server.url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
        platform: "telnyx",
        name: "Telnyx line",
        signing_secret,
      });
    const notKeys = [
      undefined,
      "KEY0123456789ABCDEF_not_a_public_key",
      Buffer.alloc(31, 7).toString("base64"),
      Buffer.alloc(33, 7).toString("base64"),
      Buffer.alloc(32, 7).toString("base64url"),
      ` ${TELNYX_KEYS.publicKey}`,
    ];
    for (const secret of notKeys) {
      const res = await create(secret);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: "Bad Request", message: "Validation failed" });
      expect(res.body.details.issues).toEqual([{ path: ["signing_secret"], message: expect.any(String) }]);
    }
    const made = await create(TELNYX_KEYS.publicKey);
    expect(made.status).toBe(200);
    expect(made.body.integration).toMatchObject({ platform: "telnyx", has_signing_secret: true });
  });
});

describe("the REST contract's rules hold for webhooks", () => {
  async function studio(accountId: string, kind: "test" | "prod") {
    const created = await post(fixture.server.url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
      platform: "twilio_studio",
      name: `Studio ${kind}`,
      kind,
      end_of_call: { variable_fields: ["order_number"] },
    });
    return (body: object) =>
      request(fixture.server.url, "POST", created.body.integration.webhook_path, {
        rawBody: JSON.stringify(body),
        headers: { authorization: `Bearer ${created.body.webhook_secret}` },
      });
  }
  const call = (event: string, callSid: string, extra: object = {}) => ({
    event,
    call_sid: callSid,
    from: "+13105550199",
    to: "+13105550100",
    ...extra,
  });

  test("what one integration saved is not seen by another kind or another account", async () => {
    const { accountId } = await createAccountWithKey(fixture.server.url);
    const testKind = await studio(accountId, "test");
    const sid = `CA${randomUUID()}`;
    expect((await testKind(call("inbound", sid))).status).toBe(200);
    const ended = await testKind(call("end", sid, { intent: "order_status", order_number: "A-1" }));
    expect(ended.body.status).toBe("saved");
    expect((await testKind(call("inbound", `CA${randomUUID()}`))).body.open_intents).toBe("order_status (1 attempt)");

    const prodKind = await studio(accountId, "prod");
    const other = await studio((await createAccountWithKey(fixture.server.url)).accountId, "test");
    for (const elsewhere of [prodKind, other]) {
      const res = await elsewhere(call("inbound", `CA${randomUUID()}`));
      expect(res.body).toMatchObject({ open_intents: "", var_order_number: "", identity_recommendation: "ignore" });
    }
  });

  test("the sensitive-data guard refuses a report carrying a card number, and nothing is billed", async () => {
    const { accountId } = await createAccountWithKey(fixture.server.url);
    const send = await studio(accountId, "test");
    const sid = `CA${randomUUID()}`;
    await send(call("inbound", sid));
    const before = await quotaOf(fixture.server.url, accountId);
    const res = await send(call("end", sid, { intent: "payment", order_number: "4111 1111 1111 1111" }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Bad Request");
    expect(await quotaOf(fixture.server.url, accountId)).toBe(before);
  });

  test("a body that is not JSON is 400 in the error shape", async () => {
    const { accountId } = await createAccountWithKey(fixture.server.url);
    const created = await post(fixture.server.url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
      platform: "twilio_studio",
      name: "Studio",
    });
    const res = await request(fixture.server.url, "POST", created.body.integration.webhook_path, {
      rawBody: "{not json",
      headers: { authorization: `Bearer ${created.body.webhook_secret}`, "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "Bad Request", message: "Validation failed" });
  });
});
