import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { telnyxConversationInsightsGenerated } from "./fixtures/telnyx-conversation-insights-generated.ts";
import { OTHER_TELNYX_KEYS, TELNYX_KEYS, telnyxHeaders } from "./telnyx-signing.ts";

// What the contract tests need to know of each platform: its documented
// example payloads (fixtures/), how it signs, and where its answer keeps the
// variables.

export interface Secrets {
  readonly webhookSecret: string;
  readonly signingSecret: string;
}

export interface PlatformCase {
  readonly platform: string;
  readonly create: Record<string, unknown>;
  readonly inbound: string;
  readonly end: string;
  /** The call id in the fixtures, replaced per test so calls stay distinct. */
  readonly fixtureCallId?: string;
  readonly caller: string;
  /** The mapped variable the end fixture saves, and its value. */
  readonly saved: { readonly intent: string; readonly variable: string; readonly value: string };
  /** Signed at nowMs (default: now), for a server whose clock is injected. */
  headers(payload: string, secrets: Secrets, kind: "inbound" | "end", nowMs?: number): Record<string, string>;
  /** The same request with a wrong credential. */
  badHeaders(payload: string, secrets: Secrets, kind: "inbound" | "end"): Record<string, string>;
  variablesOf(reply: any): Record<string, string>;
  /** The answer's keys outside the variables, exactly. */
  envelope(reply: any, callId: string): unknown;
  expectedEnvelope(callId: string): unknown;
  /** Retell: the end carries back the metadata the inbound answer set. */
  endPayload?(end: string, inboundReply: any): string;
}

export function fixture(name: string): string {
  return readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8");
}

const hmac = (secret: string, message: string) => createHmac("sha256", secret).update(message).digest("hex");
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const MAPPING = { variable_fields: [] as string[], store_summary: true };

export const PLATFORM_CASES: readonly PlatformCase[] = [
  {
    platform: "vapi",
    create: { assistant_id: "asst_5f2c", end_of_call: { ...MAPPING, variable_fields: ["plan"] } },
    inbound: fixture("vapi-assistant-request.json"),
    end: fixture("vapi-end-of-call-report.json"),
    fixtureCallId: "0f3a3c1e-6a55-4d35-9a8b-2c1e8f4b7d10",
    caller: "+14155550123",
    saved: { intent: "billing_dispute", variable: "var_plan", value: "gold" },
    headers: (_payload, s) => ({ "x-vapi-secret": s.webhookSecret }),
    badHeaders: () => ({ "x-vapi-secret": "not-the-secret" }),
    variablesOf: (reply) => reply.assistantOverrides.variableValues,
    envelope: (reply) => ({ ...reply, assistantOverrides: Object.keys(reply.assistantOverrides) }),
    expectedEnvelope: () => ({ assistantId: "asst_5f2c", assistantOverrides: ["variableValues"] }),
  },
  {
    platform: "retell",
    create: {
      signing_secret: "key_retell_api_0123456789",
      end_of_call: { ...MAPPING, variable_fields: ["delivery_day"] },
    },
    inbound: fixture("retell-call-inbound.json"),
    end: fixture("retell-call-analyzed.json"),
    caller: "+12137771234",
    saved: { intent: "reschedule_delivery", variable: "var_delivery_day", value: "Friday" },
    headers: (payload, s, _kind, stamp = Date.now()) => ({
      "x-retell-signature": `v=${stamp},d=${hmac(s.signingSecret, payload + stamp)}`,
    }),
    badHeaders: (payload) => {
      const stamp = Date.now();
      return { "x-retell-signature": `v=${stamp},d=${hmac("wrong", payload + stamp)}` };
    },
    variablesOf: (reply) => reply.call_inbound.dynamic_variables,
    envelope: (reply) => ({ call_inbound: { ...reply.call_inbound, dynamic_variables: "…" } }),
    expectedEnvelope: (callId) => ({
      call_inbound: { dynamic_variables: "…", metadata: { caller_context_call_id: callId } },
    }),
    endPayload: (end, inboundReply) => {
      const json = JSON.parse(end);
      json.call.call_id = `call_${Math.random().toString(36).slice(2)}`;
      json.call.metadata = inboundReply.call_inbound.metadata;
      return JSON.stringify(json);
    },
  },
  {
    platform: "elevenlabs",
    create: {
      signing_secret: "wsec_elevenlabs_0123456789",
      end_of_call: { ...MAPPING, variable_fields: ["router_model"] },
    },
    inbound: fixture("elevenlabs-conversation-initiation.json"),
    end: fixture("elevenlabs-post-call-transcription.json"),
    fixtureCallId: "CA7f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99",
    caller: "+447700900123",
    saved: { intent: "router_fault", variable: "var_router_model", value: "HX-300" },
    headers: (payload, s, kind, nowMs = Date.now()) => {
      if (kind === "inbound") return bearer(s.webhookSecret);
      const t = Math.floor(nowMs / 1000);
      return { "elevenlabs-signature": `t=${t},v0=${hmac(s.signingSecret, `${t}.${payload}`)}` };
    },
    badHeaders: (payload, _s, kind) => {
      if (kind === "inbound") return bearer("whsec_wrong");
      const t = Math.floor(Date.now() / 1000);
      return { "elevenlabs-signature": `t=${t},v0=${hmac("wrong", `${t}.${payload}`)}` };
    },
    variablesOf: (reply) => reply.dynamic_variables,
    envelope: (reply) => ({ ...reply, dynamic_variables: "…" }),
    expectedEnvelope: () => ({ type: "conversation_initiation_client_data", dynamic_variables: "…" }),
  },
  {
    platform: "twilio_studio",
    create: { end_of_call: { ...MAPPING, variable_fields: ["order_number"] } },
    inbound: fixture("twilio-studio-inbound.json"),
    end: fixture("twilio-studio-end.json"),
    fixtureCallId: "CA5d2e7f9a1b3c4d5e6f708192a3b4c5d6",
    caller: "+13105550177",
    saved: { intent: "order_status", variable: "var_order_number", value: "A-10442" },
    headers: (_payload, s) => bearer(s.webhookSecret),
    badHeaders: () => bearer("whsec_wrong"),
    variablesOf: (reply) => reply,
    envelope: () => ({}),
    expectedEnvelope: () => ({}),
  },
  {
    platform: "telnyx",
    create: { signing_secret: TELNYX_KEYS.publicKey, end_of_call: { ...MAPPING, variable_fields: ["clinic"] } },
    inbound: fixture("telnyx-assistant-initialization.json"),
    end: JSON.stringify(telnyxConversationInsightsGenerated),
    fixtureCallId: "v3:u5OAKGEPT3Dx8SZSSDRWEMdNH2OripQhO",
    caller: "+13125550148",
    saved: { intent: "appointment_change", variable: "var_clinic", value: "Lakeview" },
    headers: (payload, _s, _kind, nowMs) => telnyxHeaders(payload, TELNYX_KEYS, nowMs),
    badHeaders: (payload) => telnyxHeaders(payload, OTHER_TELNYX_KEYS),
    variablesOf: (reply) => reply.dynamic_variables,
    envelope: (reply) => ({ ...reply, dynamic_variables: "…" }),
    expectedEnvelope: () => ({ dynamic_variables: "…" }),
  },
];
