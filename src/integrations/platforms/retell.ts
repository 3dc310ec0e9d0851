import { objectAt, stringAt, type WebhookEvent } from "../../domain/webhook-event.ts";
import { checkWhole, headerCheck, hmacSha256Check, signatureParts } from "../webhook-credentials.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";

// Retell signs every webhook with the account's API key:
// `x-retell-signature: v=<epoch ms>,d=<hex HMAC-SHA256 of body + ms>`. The
// inbound webhook comes before Retell has a call id, so the start's call id
// travels in the call's metadata, which Retell returns in every call event.

export const RETELL_SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;
export const CALL_ID_METADATA_KEY = "caller_context_call_id";

export const retell: PlatformAdapter = {
  label: "Retell",
  signatureHeader: "x-retell-signature",
  creation: { signingSecret: "secret" },
  authenticate(request) {
    return checkWhole(this.streamingCheck?.(request), request.payload);
  },
  streamingCheck({ headers, nowMs, credentials }) {
    const parts = signatureParts(headers.get("x-retell-signature"));
    const stamp = parts.get("v") ?? "";
    if (!/^\d{1,16}$/.test(stamp) || credentials.signingSecret === null) return headerCheck(false);
    if (Math.abs(nowMs - Number(stamp)) > RETELL_SIGNATURE_TOLERANCE_MS) return headerCheck(false);
    return hmacSha256Check(credentials.signingSecret, "", stamp, parts.get("d") ?? "");
  },
  messageTypes: { pattern: /"event"\s*:\s*"([^"]+)"/, read: ["call_inbound", "call_analyzed"] },
  read(json): WebhookEvent {
    const event = stringAt(json, "event") ?? "";
    if (event === "call_inbound") {
      const inbound = objectAt(json, "call_inbound");
      return { kind: "inbound", ani: stringAt(inbound, "from_number"), dnis: stringAt(inbound, "to_number") };
    }
    const call = objectAt(json, "call");
    const callId = stringAt(call, "metadata", CALL_ID_METADATA_KEY) ?? stringAt(call, "call_id");
    // call_analyzed carries the analysis; call_started and call_ended come before it.
    if (event === "call_analyzed" && callId !== undefined) {
      return {
        kind: "end",
        callId,
        ani: stringAt(call, "from_number"),
        dnis: stringAt(call, "to_number"),
        fields: objectAt(call, "call_analysis", "custom_analysis_data"),
        summary: stringAt(call, "call_analysis", "call_summary"),
      };
    }
    return { kind: "ignored", type: event };
  },
  inboundReply(variables, integration, callId) {
    return {
      call_inbound: {
        ...(integration.assistantId === "" ? {} : { override_agent_id: integration.assistantId }),
        dynamic_variables: variables,
        metadata: { [CALL_ID_METADATA_KEY]: callId },
      },
    };
  },
};
