import { objectAt, stringAt, type WebhookEvent } from "../../domain/webhook-event.ts";
import { bearerMatches, checkWhole, headerCheck, hmacSha256Check, signatureParts } from "../webhook-credentials.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";
import {
  analysis,
  hmacHex,
  needSigningSecret,
  needWebhookSecret,
  type PlatformSimulation,
  SIMULATED_CALL_LENGTH_MS,
  seconds,
  simulatedMessage,
} from "./platform-simulation.ts";

// ElevenLabs Agents on Twilio numbers. The conversation initiation webhook
// is not signed: it carries the integration's secret as a header the agent's
// settings add. Post-call webhooks are signed with the webhook's HMAC secret:
// `ElevenLabs-Signature: t=<epoch s>,v0=<hex HMAC-SHA256 of "t.body">`.

export const ELEVENLABS_SIGNATURE_TOLERANCE_MS = 30 * 60 * 1000;

export const elevenlabs: PlatformAdapter = {
  label: "ElevenLabs",
  simulation: elevenlabsSimulation(),
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

/** ElevenLabs' webhooks as it sends them: the initiation with the agent's header, the post-call ones signed. */
function elevenlabsSimulation(): PlatformSimulation {
  const { json } = simulatedMessage;
  return {
    events: {
      conversation_initiation: json("inbound", (call) => ({
        caller_id: call.from,
        agent_id: "agent_simulated",
        called_number: call.to,
        call_sid: call.callId,
      })),
      // ElevenLabs sends nothing during a call; its audio arrives after the transcription, and is only acknowledged.
      post_call_audio: json("in-call", (call) => ({
        type: "post_call_audio",
        event_timestamp: seconds(call.nowMs),
        data: {
          agent_id: "agent_simulated",
          conversation_id: `conv_${call.callId}`,
          full_audio: "SUQzBAAAAAAAI1RTU0UAAAAP",
        },
      })),
      post_call_transcription: json("end", (call) => ({
        type: "post_call_transcription",
        event_timestamp: seconds(call.nowMs),
        data: {
          agent_id: "agent_simulated",
          conversation_id: `conv_${call.callId}`,
          status: "done",
          metadata: {
            start_time_unix_secs: seconds(call.nowMs - SIMULATED_CALL_LENGTH_MS),
            call_duration_secs: seconds(SIMULATED_CALL_LENGTH_MS),
            phone_call: {
              direction: "inbound",
              agent_number: call.to,
              external_number: call.from,
              type: "twilio",
              call_sid: call.callId,
            },
          },
          analysis: {
            data_collection_results: Object.fromEntries(
              Object.entries(analysis(call)).map(([id, value]) => [id, { data_collection_id: id, value }]),
            ),
            call_successful: "success",
            transcript_summary: call.summary,
          },
        },
      })),
    },
    headers: ({ kind, body, nowMs, webhookSecret, signingSecret }): Record<string, string> => {
      // The conversation initiation webhook carries the header the agent's settings hold; the post-call one is signed.
      if (kind === "inbound") return { authorization: `Bearer ${needWebhookSecret(webhookSecret)}` };
      const t = Math.floor(nowMs / 1000);
      return { "elevenlabs-signature": `t=${t},v0=${hmacHex(needSigningSecret(signingSecret), `${t}.${body}`)}` };
    },
  };
}
