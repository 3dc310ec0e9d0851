import { objectAt, stringAt, type WebhookEvent } from "../../domain/webhook-event.ts";
import { bearerMatches, checkWhole, headerCheck, hmacSha256Check, signatureParts } from "../webhook-credentials.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";

// ElevenLabs Agents on Twilio numbers. The conversation initiation webhook
// is not signed: it carries the integration's secret as a header the agent's
// settings add. Post-call webhooks are signed with the webhook's HMAC secret:
// `ElevenLabs-Signature: t=<epoch s>,v0=<hex HMAC-SHA256 of "t.body">`.

export const ELEVENLABS_SIGNATURE_TOLERANCE_MS = 30 * 60 * 1000;

export const elevenlabs: PlatformAdapter = {
  label: "ElevenLabs",
  signatureHeader: "elevenlabs-signature",
  creation: { signingSecret: "secret" },
  authenticate(request) {
    return checkWhole(this.streamingCheck?.(request), request.payload);
  },
  streamingCheck({ headers, nowMs, credentials }) {
    const signature = headers.get("elevenlabs-signature");
    if (signature === null) return headerCheck(bearerMatches(headers, credentials.tokenHash));
    const parts = signatureParts(signature);
    const stamp = parts.get("t") ?? "";
    if (!/^\d{1,13}$/.test(stamp) || credentials.signingSecret === null) return headerCheck(false);
    if (Math.abs(nowMs - Number(stamp) * 1000) > ELEVENLABS_SIGNATURE_TOLERANCE_MS) return headerCheck(false);
    return hmacSha256Check(credentials.signingSecret, `${stamp}.`, "", parts.get("v0") ?? "");
  },
  // The conversation initiation webhook has no type: it is read, so it keeps the size limit.
  messageTypes: { pattern: /"type"\s*:\s*"([^"]+)"/, read: ["post_call_transcription"] },
  read(json): WebhookEvent {
    const type = stringAt(json, "type");
    if (type === undefined && stringAt(json, "caller_id") !== undefined) {
      return {
        kind: "inbound",
        callId: stringAt(json, "call_sid"),
        ani: stringAt(json, "caller_id"),
        dnis: stringAt(json, "called_number"),
      };
    }
    const data = objectAt(json, "data");
    const phone = objectAt(data, "metadata", "phone_call");
    const callId =
      stringAt(phone, "call_sid") ??
      stringAt(data, "conversation_initiation_client_data", "dynamic_variables", "system__call_sid");
    if (type === "post_call_transcription" && callId !== undefined) {
      const results = objectAt(data, "analysis", "data_collection_results");
      const fields = Object.fromEntries(Object.entries(results).map(([name, r]) => [name, objectAt(r).value]));
      return {
        kind: "end",
        callId,
        ani: stringAt(phone, "external_number"),
        dnis: stringAt(phone, "agent_number"),
        fields,
        summary: stringAt(data, "analysis", "transcript_summary"),
      };
    }
    return { kind: "ignored", type: type ?? "" };
  },
  inboundReply(variables) {
    return { type: "conversation_initiation_client_data", dynamic_variables: variables };
  },
};
