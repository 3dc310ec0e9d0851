import { beforeAll, describe, expect, test } from "vitest";
import { createKey } from "../helpers/admin-client.ts";
import { post, request } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";
import { PLATFORM_CASES } from "./platform-case.ts";
import { connectPlatform, newCallId, type PlatformSender } from "./platform-sender.ts";

// Each platform's own call summary, saved from its end-of-call report, is the
// call's summary: the caller's next inbound call gets it as last_call_summary
// and the API's start as recent_calls. A variable saved with
// requires_verification never reaches a platform's prompt variables, since an
// inbound call is matched by its number alone; its name does.

const fixture = useTestServer();

describe.each(PLATFORM_CASES)("$platform summaries", (platform) => {
  let sender: PlatformSender;
  let apiKey: string;
  beforeAll(async () => {
    sender = await connectPlatform(fixture.server.url, platform);
    ({ apiKey } = await createKey(fixture.server.url, sender.accountId, "test"));
  });

  /** The call id the inbound answer started, as the platform will name the call. */
  const startedCallId = (callId: string, reply: any) => reply.call_inbound?.metadata?.caller_context_call_id ?? callId;

  test("the platform's summary is the call's summary at the next inbound call and the next start", async () => {
    const callId = newCallId();
    const first = await sender.inbound(callId);
    const ref = platform.variablesOf(first.body).customer_ref;
    const ended = await sender.send(sender.endPayload(callId, first.body), "end");
    expect(ended.body.status).toBe("saved");

    const next = platform.variablesOf((await sender.inbound()).body);
    expect(next.customer_ref).toBe(ref);
    expect(next.last_call_summary).toBe(platform.saved.summary);
    expect(next.caller_context).toContain(platform.saved.summary);

    const started = await post(fixture.server.url, "/v1/calls/start", apiKey, {
      call_id: newCallId(),
      identity_hints: { customer_ref: ref },
    });
    expect(started.body.recent_calls[0]).toMatchObject({
      summary: platform.saved.summary,
      intents: [{ intent: platform.saved.intent, status: "open" }],
    });
  });

  test("a variable that needs verification is held back from the prompt variables, by name only", async () => {
    const callId = newCallId();
    const first = await sender.inbound(callId);
    const ref = platform.variablesOf(first.body).customer_ref;
    const ended = await post(fixture.server.url, "/v1/calls/end", apiKey, {
      call_id: startedCallId(callId, first.body),
      customer_ref: ref,
      variable_updates: {
        home_address: { value: "12 Acacia Avenue", requires_verification: true },
        plan: { value: "gold" },
      },
    });
    expect(ended.status).toBe(200);

    const next = await sender.inbound();
    const variables = platform.variablesOf(next.body);
    expect(variables.customer_ref).toBe(ref);
    expect(variables.var_plan).toBe("gold");
    expect(variables.held_back_variables).toBe("home_address");
    expect(variables.var_home_address).toBeUndefined();
    expect(JSON.stringify(next.body)).not.toContain("Acacia");
    expect(variables.caller_context).toContain("Held back until the caller's identity is verified: home_address");

    const record = await request(fixture.server.url, "GET", `/v1/customers/${ref}`, { token: apiKey });
    expect(record.body.variables.home_address.value).toBe("12 Acacia Avenue");
  });
});
