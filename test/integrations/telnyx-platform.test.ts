import Telnyx from "telnyx";
import { describe, expect, test } from "vitest";
import { hashSecret } from "../../src/domain/api-key.ts";
import { telnyx } from "../../src/integrations/platforms/telnyx.ts";
import { telnyxConversationInsightsGenerated } from "./fixtures/telnyx-conversation-insights-generated.ts";
import { fixture } from "./platform-case.ts";
import { OTHER_TELNYX_KEYS, TELNYX_KEYS, telnyxHeaders } from "./telnyx-signing.ts";

// The signatures the contract tests send are ones the `telnyx` SDK's own
// verifier accepts, and the adapter accepts exactly what that verifier accepts:
// a signing mistake in the tests or in the adapter fails here. The SDK reads
// the real clock, so these signatures are made at the real time.

const INBOUND = fixture("telnyx-assistant-initialization.json");
const END = JSON.stringify(telnyxConversationInsightsGenerated);
const sdk = new Telnyx({ apiKey: "KEY_not_used_by_webhook_verification", publicKey: TELNYX_KEYS.publicKey });
const credentials = { tokenHash: hashSecret("whsec_token"), signingSecret: TELNYX_KEYS.publicKey };

async function sdkAccepts(payload: string, headers: Record<string, string>): Promise<boolean> {
  try {
    await sdk.webhooks.unwrap(payload, { headers });
    return true;
  } catch {
    return false;
  }
}
/**
 * The adapter's answer, checked whole and as a large body is checked (streamed in uneven chunks through the
 * streaming Ed25519 check): the two must agree, so every case below proves both against the SDK.
 */
function adapterAccepts(payload: string, headers: Record<string, string>): boolean {
  const request = {
    headers: new Headers(headers),
    url: "https://cc.example.com/v1/integrations/wh_0123456789abcdefghijABCDEFGHIJ01",
    nowMs: Date.now(),
    credentials,
  };
  const whole = telnyx.authenticate({ ...request, payload });
  const streamed = telnyx.streamingCheck?.(request);
  const bytes = Buffer.from(payload, "utf8");
  for (let at = 0; at < bytes.length; at += 7) streamed?.update(bytes.subarray(at, at + 7));
  expect(streamed?.matches()).toBe(whole);
  return whole;
}

describe("Telnyx signatures agree with the telnyx SDK's webhook verifier", () => {
  test("the fixtures signed as the tests sign them pass the SDK, which returns the same event", async () => {
    for (const payload of [INBOUND, END]) {
      const event = await sdk.webhooks.unwrap(payload, { headers: telnyxHeaders(payload) });
      expect(event).toEqual(JSON.parse(payload));
      expect(adapterAccepts(payload, telnyxHeaders(payload))).toBe(true);
    }
  });

  test("what the SDK refuses the adapter refuses, and what it accepts the adapter accepts", async () => {
    const now = Date.now();
    const signed = telnyxHeaders(END);
    const cases: Record<string, [string, Record<string, string>]> = {
      "signed now": [END, signed],
      "signed 290 s ago": [END, telnyxHeaders(END, TELNYX_KEYS, now - 290_000)],
      "signed 290 s ahead": [END, telnyxHeaders(END, TELNYX_KEYS, now + 290_000)],
      "signed 310 s ago": [END, telnyxHeaders(END, TELNYX_KEYS, now - 310_000)],
      "a changed body": [`${END} `, signed],
      "another account's key": [END, telnyxHeaders(END, OTHER_TELNYX_KEYS)],
      "another timestamp than the signed one": [
        END,
        { ...signed, "telnyx-timestamp": String(Number(signed["telnyx-timestamp"]) - 1) },
      ],
      "a signature cut short": [
        END,
        { ...signed, "telnyx-signature-ed25519": signed["telnyx-signature-ed25519"].slice(0, 40) },
      ],
      "no timestamp": [END, { "telnyx-signature-ed25519": signed["telnyx-signature-ed25519"] }],
    };
    const verdicts: Record<string, [boolean, boolean]> = {};
    for (const [name, [payload, headers]] of Object.entries(cases)) {
      verdicts[name] = [await sdkAccepts(payload, headers), adapterAccepts(payload, headers)];
    }
    expect(verdicts).toEqual({
      "signed now": [true, true],
      "signed 290 s ago": [true, true],
      "signed 290 s ahead": [true, true],
      "signed 310 s ago": [false, false],
      "a changed body": [false, false],
      "another account's key": [false, false],
      "another timestamp than the signed one": [false, false],
      "a signature cut short": [false, false],
      "no timestamp": [false, false],
    });
  });
});

describe("Telnyx events read", () => {
  const insights = (results: unknown[]) =>
    telnyx.read({
      data: {
        event_type: "call.conversation_insights.generated",
        payload: { call_control_id: "v3:abc", results },
      },
    });

  test("the dynamic variables request is an inbound call: end user, agent and call control id", () => {
    expect(telnyx.read(JSON.parse(INBOUND))).toEqual({
      kind: "inbound",
      callId: "v3:u5OAKGEPT3Dx8SZSSDRWEMdNH2OripQhO",
      ani: "+13125550148",
      dnis: "+13128675309",
    });
  });

  test("structured results give their keys, as objects or as JSON text; the first free-form text is the summary", () => {
    expect(
      insights([
        { insight_id: "ins_summary", result: "Asked to move an appointment." },
        { insight_id: "ins_intent", result: '{"intent": "appointment_change", "intent_status": "open"}' },
        { insight_id: "ins_clinic", result: { clinic: "Lakeview", visits: 3 } },
        { insight_id: "ins_mood", result: "Calm." },
      ]),
    ).toEqual({
      kind: "end",
      callId: "v3:abc",
      fields: {
        ins_summary: "Asked to move an appointment.",
        intent: "appointment_change",
        intent_status: "open",
        clinic: "Lakeview",
        visits: 3,
        ins_mood: "Calm.",
      },
      summary: "Asked to move an appointment.",
    });
  });

  test("no results, or results of no use, save an end with nothing mapped", () => {
    expect(insights([])).toEqual({ kind: "end", callId: "v3:abc", fields: {}, summary: undefined });
    expect(insights([{ insight_id: "x", result: "" }, { result: ["a"] }, "junk"])).toEqual({
      kind: "end",
      callId: "v3:abc",
      fields: {},
      summary: undefined,
    });
  });

  test("other events, and insights without a call control id, are ignored", () => {
    expect(
      telnyx.read({ data: { event_type: "call.conversation.ended", payload: { call_control_id: "v3:abc" } } }),
    ).toEqual({ kind: "ignored", type: "call.conversation.ended" });
    expect(telnyx.read({ event_type: "conversation.insights.completed", conversation_id: "conv_1" })).toEqual({
      kind: "ignored",
      type: "conversation.insights.completed",
    });
    expect(
      telnyx.read({ data: { event_type: "call.conversation_insights.generated", payload: { results: [] } } }),
    ).toEqual({ kind: "ignored", type: "call.conversation_insights.generated" });
  });
});
