import { objectAt, stringAt, type WebhookEvent } from "../../domain/webhook-event.ts";
import { checkWhole, headerCheck, hmacSha256Check, signatureParts } from "../webhook-credentials.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";
import {
  analysis,
  hmacHex,
  needSigningSecret,
  type PlatformSimulation,
  SIMULATED_CALL_LENGTH_MS,
  simulatedMessage,
} from "./platform-simulation.ts";

// Retell signs every webhook with the account's API key:
// `x-retell-signature: v=<epoch ms>,d=<hex HMAC-SHA256 of body + ms>`. The
// inbound webhook comes before Retell has a call id, so the start's call id
// travels in the call's metadata, which Retell returns in every call event.

export const RETELL_SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;
export const CALL_ID_METADATA_KEY = "caller_context_call_id";

export const retell: PlatformAdapter = {
  label: "Retell",
  simulation: retellSimulation(),
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

/** Retell's webhooks as it sends them, signed with the account's API key. */
function retellSimulation(): PlatformSimulation {
  const { json } = simulatedMessage;
  return {
    events: {
      call_inbound: json("inbound", (call) => ({
        event: "call_inbound",
        call_inbound: { agent_id: "agent_simulated", agent_version: 1, from_number: call.from, to_number: call.to },
      })),
      call_started: json("in-call", (call) => ({ event: "call_started", call: { call_id: `call_${call.callId}` } })),
      call_analyzed: json("end", (call) => ({
        event: "call_analyzed",
        call: {
          call_type: "phone_call",
          from_number: call.from,
          to_number: call.to,
          direction: "inbound",
          call_id: `call_${call.callId}`,
          agent_id: "agent_simulated",
          call_status: "ended",
          // What the inbound answer set: Retell returns the call's metadata in every later event.
          metadata: { [CALL_ID_METADATA_KEY]: call.callId },
          start_timestamp: call.nowMs - SIMULATED_CALL_LENGTH_MS,
          end_timestamp: call.nowMs,
          duration_ms: SIMULATED_CALL_LENGTH_MS,
          disconnection_reason: "user_hangup",
          call_analysis: { call_summary: call.summary, call_successful: true, custom_analysis_data: analysis(call) },
        },
      })),
    },
    headers: ({ body, nowMs, signingSecret }) => ({
      "x-retell-signature": `v=${nowMs},d=${hmacHex(needSigningSecret(signingSecret), body + nowMs)}`,
    }),
    // Retell's inbound carries no call id: the service's answer names the one the end must carry.
    inboundCallId: (answer) => stringAt(answer, "call_inbound", "metadata", CALL_ID_METADATA_KEY) ?? "",
  };
}
