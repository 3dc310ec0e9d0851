import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { symmetric as retellSignature } from "retell-sdk/lib/webhook_auth";
import twilio from "twilio";
import { telnyxConversationInsightsGenerated } from "./fixtures/telnyx-conversation-insights-generated.ts";
import { assistantRequest, endOfCallReport, statusUpdate } from "./fixtures/vapi-messages.ts";
import { OTHER_TELNYX_KEYS, TELNYX_KEYS, telnyxHeaders } from "./telnyx-signing.ts";

// What the contract tests need to know of each platform: its example payloads
// (fixtures/: Vapi's typed by its SDK), how it signs (with the platform's own
// SDK where it has a signer), and where its answer keeps the variables.

export interface Secrets {
  readonly webhookSecret: string;
  readonly signingSecret: string;
}

/** What a platform signs: the body as sent, when, and the URL it requested. */
export interface Signing {
  readonly payload: string;
  readonly secrets: Secrets;
  readonly kind: "inbound" | "end" | "ignored";
  readonly nowMs: number;
  readonly url: string;
}

export interface PlatformCase {
  readonly platform: string;
  readonly create: Record<string, unknown>;
  readonly inbound: string;
  readonly end: string;
  /** A routine message the platform sends during a call, which the service only acknowledges. */
  readonly ignored: string;
  /** A message the service only acknowledges, of about `bytes` (audio, a long transcript). */
  large(bytes: number): { readonly payload: string; readonly contentType: string };
  /** The credentials of the large message, when the platform sends it otherwise. */
  largeHeaders?(signing: Signing, bad: boolean): Promise<Record<string, string>>;
  /** The Content-Type the platform sends its bodies with. */
  readonly contentType: string;
  /** The call id in the fixtures, replaced per test so calls stay distinct. */
  readonly fixtureCallId?: string;
  readonly caller: string;
  /** The mapped variable the end fixture saves, and its value; the platform's own summary of the call. */
  readonly saved: {
    readonly intent: string;
    readonly variable: string;
    readonly value: string;
    readonly summary: string;
  };
  headers(signing: Signing): Promise<Record<string, string>>;
  /** The same request with a wrong credential. */
  badHeaders(signing: Signing): Promise<Record<string, string>>;
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
const JSON_TYPE = "application/json";
const FORM_TYPE = "application/x-www-form-urlencoded";

/** A flat JSON fixture as the form Twilio Studio's widget sends by default. */
const asForm = (json: string) => new URLSearchParams(JSON.parse(json)).toString();

/** Base64 of about `bytes` characters, as audio arrives. */
const filler = (bytes: number) => Buffer.alloc(Math.ceil((bytes * 3) / 4), 7).toString("base64");

const elevenlabsSignature = (secret: string, { payload, nowMs }: Signing) => {
  const t = Math.floor(nowMs / 1000);
  return { "elevenlabs-signature": `t=${t},v0=${hmac(secret, `${t}.${payload}`)}` };
};

const twilioSignature = (authToken: string, { payload, url }: Signing) => ({
  "x-twilio-signature": twilio.getExpectedTwilioSignature(
    authToken,
    url,
    Object.fromEntries(new URLSearchParams(payload)),
  ),
});

export const PLATFORM_CASES: readonly PlatformCase[] = [
  {
    platform: "vapi",
    create: { assistant_id: "asst_5f2c", end_of_call: { ...MAPPING, variable_fields: ["plan"] } },
    inbound: JSON.stringify(assistantRequest),
    end: JSON.stringify(endOfCallReport),
    ignored: JSON.stringify(statusUpdate),
    large: (bytes) => ({
      payload: JSON.stringify({
        message: { type: "transcript", role: "user", transcriptType: "final", transcript: filler(bytes) },
      }),
      contentType: JSON_TYPE,
    }),
    contentType: JSON_TYPE,
    fixtureCallId: "0f3a3c1e-6a55-4d35-9a8b-2c1e8f4b7d10",
    caller: "+14155550123",
    saved: {
      intent: "billing_dispute",
      variable: "var_plan",
      value: "gold",
      summary: "The caller reported a double charge on the gold plan; a refund review was opened.",
    },
    headers: async ({ secrets }) => ({ "x-vapi-secret": secrets.webhookSecret }),
    badHeaders: async () => ({ "x-vapi-secret": "not-the-secret" }),
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
    ignored: JSON.stringify({ event: "call_started", call: { call_id: "Jabr9TXYYJHfvl6Syypi88rdAHYHmcq6" } }),
    large: (bytes) => ({
      payload: JSON.stringify({
        event: "call_ended",
        call: { call_id: "Jabr9TXYYJHfvl6Syypi88rdAHYHmcq6", transcript: filler(bytes) },
      }),
      contentType: JSON_TYPE,
    }),
    contentType: JSON_TYPE,
    caller: "+12137771234",
    saved: {
      intent: "reschedule_delivery",
      variable: "var_delivery_day",
      value: "Friday",
      summary: "The caller asked to move a delivery to Friday; the agent confirmed the new date.",
    },
    headers: async ({ payload, secrets, nowMs }) => ({
      "x-retell-signature": await retellSignature.sign(payload, secrets.signingSecret, nowMs),
    }),
    badHeaders: async ({ payload, nowMs }) => ({
      "x-retell-signature": await retellSignature.sign(payload, "key_wrong", nowMs),
    }),
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
    ignored: JSON.stringify({
      type: "post_call_audio",
      event_timestamp: 1739537297,
      data: {
        agent_id: "J3Pbu5gP6NNKBscdCdwB",
        conversation_id: "conv_01jm5x2k8ahz1d5ypv4h2x7bq3",
        full_audio: "SUQz",
      },
    }),
    large: (bytes) => ({
      payload: JSON.stringify({
        type: "post_call_audio",
        event_timestamp: 1739537297,
        data: {
          agent_id: "J3Pbu5gP6NNKBscdCdwB",
          conversation_id: "conv_01jm5x2k8ahz1d5ypv4h2x7bq3",
          full_audio: filler(bytes),
        },
      }),
      contentType: JSON_TYPE,
    }),
    contentType: JSON_TYPE,
    fixtureCallId: "CA7f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99",
    caller: "+447700900123",
    saved: {
      intent: "router_fault",
      variable: "var_router_model",
      value: "HX-300",
      summary: "The customer reported that the HX-300 router keeps dropping the connection.",
    },
    headers: async (signing) =>
      signing.kind === "inbound"
        ? bearer(signing.secrets.webhookSecret)
        : elevenlabsSignature(signing.secrets.signingSecret, signing),
    badHeaders: async (signing) =>
      signing.kind === "inbound" ? bearer("whsec_wrong") : elevenlabsSignature("wrong", signing),
    variablesOf: (reply) => reply.dynamic_variables,
    envelope: (reply) => ({ ...reply, dynamic_variables: "…" }),
    expectedEnvelope: () => ({ type: "conversation_initiation_client_data", dynamic_variables: "…" }),
  },
  {
    platform: "twilio_studio",
    // The account's auth token: Twilio signs every widget request with it.
    create: {
      signing_secret: "0123456789abcdef0123456789abcdef",
      end_of_call: { ...MAPPING, variable_fields: ["order_number"] },
    },
    inbound: asForm(fixture("twilio-studio-inbound.json")),
    end: asForm(fixture("twilio-studio-end.json")),
    ignored: asForm(JSON.stringify({ event: "progress", call_sid: "CA5d2e7f9a1b3c4d5e6f708192a3b4c5d6" })),
    // A form's signature covers its sorted parameters, which cannot be checked as the body streams in: a large
    // message is sent as JSON with Basic credentials from the URL, as docs/integrations.md sets the widget up.
    large: (bytes) => ({
      payload: JSON.stringify({
        event: "recording",
        call_sid: "CA5d2e7f9a1b3c4d5e6f708192a3b4c5d6",
        audio: filler(bytes),
      }),
      contentType: JSON_TYPE,
    }),
    largeHeaders: async ({ secrets }, bad) => ({
      authorization: `Basic ${Buffer.from(`studio:${bad ? "whsec_wrong" : secrets.webhookSecret}`).toString("base64")}`,
    }),
    contentType: FORM_TYPE,
    fixtureCallId: "CA5d2e7f9a1b3c4d5e6f708192a3b4c5d6",
    caller: "+13105550177",
    saved: {
      intent: "order_status",
      variable: "var_order_number",
      value: "A-10442",
      summary: "The caller asked where order A-10442 is.",
    },
    headers: async (signing) => twilioSignature(signing.secrets.signingSecret, signing),
    badHeaders: async (signing) => twilioSignature("fedcba9876543210fedcba9876543210", signing),
    variablesOf: (reply) => reply,
    envelope: () => ({}),
    expectedEnvelope: () => ({}),
  },
  {
    platform: "telnyx",
    create: { signing_secret: TELNYX_KEYS.publicKey, end_of_call: { ...MAPPING, variable_fields: ["clinic"] } },
    inbound: fixture("telnyx-assistant-initialization.json"),
    end: JSON.stringify(telnyxConversationInsightsGenerated),
    ignored: JSON.stringify({
      data: {
        record_type: "event",
        event_type: "call.conversation.ended",
        payload: { call_control_id: "v3:u5OAKGEPT3Dx8SZSSDRWEMdNH2OripQhO" },
      },
    }),
    large: (bytes) => ({
      payload: JSON.stringify({
        data: {
          record_type: "event",
          event_type: "call.recording.saved",
          payload: { call_control_id: "v3:u5OAKGEPT3Dx8SZSSDRWEMdNH2OripQhO", recording: filler(bytes) },
        },
      }),
      contentType: JSON_TYPE,
    }),
    contentType: JSON_TYPE,
    fixtureCallId: "v3:u5OAKGEPT3Dx8SZSSDRWEMdNH2OripQhO",
    caller: "+13125550148",
    saved: {
      intent: "appointment_change",
      variable: "var_clinic",
      value: "Lakeview",
      summary:
        "The caller wanted to move Thursday's appointment at the Lakeview clinic to next week; " +
        "the assistant could not find a free slot and promised a call back.",
    },
    headers: async ({ payload, nowMs }) => telnyxHeaders(payload, TELNYX_KEYS, nowMs),
    badHeaders: async ({ payload, nowMs }) => telnyxHeaders(payload, OTHER_TELNYX_KEYS, nowMs),
    variablesOf: (reply) => reply.dynamic_variables,
    envelope: (reply) => ({ ...reply, dynamic_variables: "…" }),
    expectedEnvelope: () => ({ dynamic_variables: "…" }),
  },
];
