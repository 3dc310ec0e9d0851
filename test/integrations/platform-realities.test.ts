import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAccount } from "../../src/accounts/create-account.ts";
import { createManualClock } from "../../src/domain/clock.ts";
import { createIntegration } from "../../src/integrations/create-integration.ts";
import { creditsLeft } from "../../src/store/billing/charge.ts";
import { accountDepsOf } from "../../src/use-case-deps.ts";
import { quotaOf, setQuota } from "../helpers/admin-client.ts";
import { postAnsweredEarly } from "../helpers/raw-post.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";
import { PLATFORM_CASES, type PlatformCase } from "./platform-case.ts";
import { connectPlatform, newCallId, type PlatformSender, platformSender } from "./platform-sender.ts";

// What a platform's user needs from the service, replayed as each platform
// sends it: a caller who rings back days later is remembered, and a platform
// call never fails because of a limit of ours. The clock starts at the real
// time so the platforms' signatures, made at the server's time, stay theirs.

const DAY = 24 * 60 * 60 * 1000;
const clock = createManualClock(new Date());
const fixture = useTestServer({ clock });
/**
 * When each message is signed: the server's clock, a millisecond on per message, as real messages are apart
 * (Retell's inbound body names no call, so two calls from one number differ only in their signature's time).
 */
const nowMs = () => {
  clock.advance(1);
  return clock.now().getTime();
};

/** The answer's envelope and variables: a valid reply of the platform, every variable a string. */
function expectPlatformReply(platform: PlatformCase, body: unknown, callId: string) {
  const generated = (body as any).call_inbound?.metadata?.caller_context_call_id;
  expect(platform.envelope(body, callId)).toEqual(platform.expectedEnvelope(generated ?? callId));
  const variables = platform.variablesOf(body);
  for (const value of Object.values(variables)) expect(typeof value).toBe("string");
  return variables;
}

describe.each(PLATFORM_CASES)("$platform as it really sends", (platform) => {
  test("a caller ringing back two days later gets the earlier intent, variables and summary", async () => {
    const sender = await connectPlatform(fixture.server.url, platform, { nowMs });
    const callId = newCallId();
    const first = await sender.inbound(callId);
    expect(first.status).toBe(200);
    const ended = await sender.send(sender.endPayload(callId, first.body), "end");
    expect(ended.body.status).toBe("saved");

    clock.advance(2 * DAY);
    const laterCallId = newCallId();
    const later = await sender.inbound(laterCallId);
    expect(later.status).toBe(200);
    const variables = expectPlatformReply(platform, later.body, laterCallId);
    expect(variables.customer_ref).toBe(platform.variablesOf(first.body).customer_ref);
    expect(variables.identity_recommendation).toBe("confirm");
    expect(variables.open_intents).toBe(`${platform.saved.intent} (1 attempt)`);
    expect(variables[platform.saved.variable]).toBe(platform.saved.value);
    expect(variables.var_call_summary).not.toBe("");
    expect(variables.no_context_reason).toBe("");
  });

  test("out of credits, an inbound call still gets a 2xx 'no context' reply, and its end of call is saved unbilled", async () => {
    const sender = await connectPlatform(fixture.server.url, platform, { nowMs, credits: 1 });
    const callId = newCallId();
    const first = await sender.inbound(callId);
    expect(platform.variablesOf(first.body).customer_ref).not.toBe("");
    expect(await quotaOf(fixture.server.url, sender.accountId)).toBe(0);

    const ended = await sender.send(sender.endPayload(callId, first.body), "end");
    expect(ended.status).toBe(200);
    expect(ended.body.status).toBe("saved");
    expect(await quotaOf(fixture.server.url, sender.accountId)).toBe(0);

    const refusedCallId = newCallId();
    const refused = await sender.inbound(refusedCallId);
    expect(refused.status).toBe(200);
    const variables = expectPlatformReply(platform, refused.body, refusedCallId);
    expect(variables).toMatchObject({ customer_ref: "", open_intents: "", no_context_reason: "quota_exhausted" });
    expect(variables.caller_context).toContain("No caller context");

    // What was saved unbilled is there for the next call once credits are back.
    await setQuota(fixture.server.url, sender.accountId, 5);
    const topped = platform.variablesOf((await sender.inbound()).body);
    expect(topped.open_intents).toBe(`${platform.saved.intent} (1 attempt)`);
  });

  test("200 in-call messages in a minute on the Free tier leave the end-of-call report saved", async () => {
    const sender = await connectPlatform(fixture.server.url, platform, { nowMs, tier: "free" });
    const callId = newCallId();
    const first = await sender.inbound(callId);
    const before = await quotaOf(fixture.server.url, sender.accountId);
    for (let i = 0; i < 200; i++) {
      const ack = await sender.ignored();
      expect(ack.status).toBe(200);
      expect(ack.body.status).toBe("ignored");
    }
    expect(await quotaOf(fixture.server.url, sender.accountId)).toBe(before);
    const ended = await sender.send(sender.endPayload(callId, first.body), "end");
    expect(ended.status).toBe(200);
    expect(ended.body.status).toBe("saved");
  });

  test("a 3 MB message the service does not read is acknowledged; with a wrong credential it is refused", async () => {
    const sender = await connectPlatform(fixture.server.url, platform, { nowMs });
    const before = await quotaOf(fixture.server.url, sender.accountId);
    const ack = await sender.large(3 * 1024 * 1024);
    expect(ack.status).toBe(200);
    expect(ack.body.status).toBe("ignored");
    expect((await sender.large(3 * 1024 * 1024, { bad: true })).status).toBe(401);
    expect(await quotaOf(fixture.server.url, sender.accountId)).toBe(before);
  });

  test("a message the service reads keeps the body limit", async () => {
    const sender = await connectPlatform(fixture.server.url, platform, { nowMs });
    const padded =
      platform.contentType === "application/json"
        ? JSON.stringify({ ...JSON.parse(sender.inboundPayload(newCallId())), padding: "x".repeat(2 * 1024 * 1024) })
        : `${sender.inboundPayload(newCallId())}&padding=${"x".repeat(2 * 1024 * 1024)}`;
    const res = await postAnsweredEarly(
      new URL(sender.path, fixture.server.url).toString(),
      {
        "content-type": platform.contentType,
        ...(await platform.headers({
          payload: padded,
          secrets: sender.secrets,
          kind: "inbound",
          nowMs: nowMs(),
          url: new URL(sender.path, fixture.server.url).toString(),
        })),
      },
      padded,
    );
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "Payload Too Large", message: "Request body is too large" });
  });

  test("a signed inbound message replayed three times gets the first answer each time and is billed once", async () => {
    const sender = await connectPlatform(fixture.server.url, platform, { nowMs });
    const callId = newCallId();
    const send = await sender.signed(sender.inboundPayload(callId), "inbound");
    const before = await quotaOf(fixture.server.url, sender.accountId);
    const first = await send();
    expect(first.status).toBe(200);
    expect(platform.variablesOf(first.body).customer_ref).not.toBe("");
    for (let i = 0; i < 3; i++) {
      const replayed = await send();
      expect(replayed.status).toBe(200);
      expect(replayed.body).toEqual(first.body);
    }
    expect(await quotaOf(fixture.server.url, sender.accountId)).toBe(before - 1);
    // A new message (a new call, or the same call signed anew) is answered afresh.
    const next = await sender.inbound();
    expect(platform.variablesOf(next.body).customer_ref).toBe(platform.variablesOf(first.body).customer_ref);
    expect(await quotaOf(fixture.server.url, sender.accountId)).toBe(before - 2);
  });

  test("an in-call message with a wrong signature is still refused", async () => {
    const sender = await connectPlatform(fixture.server.url, platform, { nowMs });
    expect((await sender.send(platform.ignored, "ignored", { bad: true })).status).toBe(401);
  });
});

describe("an instance shedding load", () => {
  let shedding: TestServer;
  beforeAll(async () => {
    // Any heap in use is "too much": every new call is refused as the process's own pressure.
    shedding = await startTestServer({ env: { ADMISSION_MAX_HEAP_USED_BYTES: "1" } });
    for (let waited = 0; !shedding.context.admission.shedding(); waited += 10) {
      if (waited > 5000) throw new Error("the instance never started shedding");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  afterAll(() => shedding?.stop());

  /** Set up with the use cases themselves: the admin API is shed too. */
  async function integrationOn(server: TestServer, platform: PlatformCase): Promise<PlatformSender> {
    const deps = accountDepsOf(server.context);
    const account = await createAccount(deps, { name: "Shed", tier: "growth", quota: 100 });
    const { integration, webhookSecret } = await createIntegration(deps, {
      accountId: account.accountId,
      platform: platform.platform,
      name: `${platform.platform} line`,
      signingSecret: platform.create.signing_secret as string | undefined,
      assistantId: platform.create.assistant_id as string | undefined,
      variableFields: (platform.create.end_of_call as { variable_fields: string[] }).variable_fields,
      storeSummary: true,
    });
    return platformSender(server.url, platform, {
      accountId: account.accountId,
      path: integration.webhookPath,
      webhookSecret,
    });
  }

  test.each(PLATFORM_CASES)(
    "$platform: a shed inbound call gets a 2xx 'no context' reply, and nothing is saved or billed",
    async (platform) => {
      const sender = await integrationOn(shedding, platform);
      const callId = newCallId();
      const res = await sender.inbound(callId);
      expect(res.status).toBe(200);
      const variables = expectPlatformReply(platform, res.body, callId);
      expect(variables).toMatchObject({ customer_ref: "", no_context_reason: "overloaded" });
      const db = shedding.context.database.db;
      const rows = await db.selectFrom("calls").select("call_id").where("account_id", "=", sender.accountId).execute();
      expect(rows).toEqual([]);
      const credits = await creditsLeft(db, sender.accountId, new Date(), shedding.config.monthlyQuota);
      expect(credits).toBe(100);
    },
  );
});
