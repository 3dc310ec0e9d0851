import { createPrivateKey, sign } from "node:crypto";
import { readLevel } from "../../domain/verstat.ts";
import { at, objectAt, stringAt, type WebhookEvent } from "../../domain/webhook-event.ts";
import { ed25519Verifies, isEd25519PublicKey } from "../ed25519-signature.ts";
import { ed25519StreamingCheck } from "../ed25519-stream.ts";
import { bearerMatches, headerCheck } from "../webhook-credentials.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";
import { analysis, iso, needSigningSecret, type PlatformSimulation, simulatedMessage } from "./platform-simulation.ts";

// Telnyx AI Assistants. The dynamic variables webhook (`assistant.initialization`)
// opens the call and is answered with `{"dynamic_variables": {...}}` within the
// assistant's timeout (1 s by default); `call.conversation_insights.generated`
// carries the insight group's results after the call. Both name the call by
// `call_control_id`. Telnyx signs its API v2 webhooks with the account's
// Ed25519 key: `telnyx-signature-ed25519` over `<telnyx-timestamp>|<body>`. A
// request without that header must carry the integration's secret as Bearer.
// The dynamic variables webhook as documented carries no STIR/SHAKEN data;
// when its payload carries Call Control's `shaken_stir_attestation` and
// `shaken_stir_validated`, they are read (docs/integrations.md).

/** The window the `telnyx` SDK's own verifier allows either way. */
export const TELNYX_SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;

/** Telnyx waits 1 s for the dynamic variables; the rest is the network's, both ways. */
export const TELNYX_INBOUND_BUDGET_MS = 700;

export const telnyx: PlatformAdapter = {
  label: "Telnyx",
  simulation: telnyxSimulation(),
  signatureHeader: "telnyx-signature-ed25519",
  creation: {
    signingSecret: "public key",
    checkSigningSecret: (value) =>
      isEd25519PublicKey(value)
        ? undefined
        : "For telnyx: the account's public key as Mission Control shows it, the base64 of 32 bytes (44 characters)",
  },
  inboundBudgetMs: TELNYX_INBOUND_BUDGET_MS,
  authenticate({ payload, headers, nowMs, credentials }) {
    const signature = headers.get("telnyx-signature-ed25519");
    if (signature === null) return bearerMatches(headers, credentials.tokenHash);
    const stamp = headers.get("telnyx-timestamp") ?? "";
    if (!/^\d{1,12}$/.test(stamp) || credentials.signingSecret === null) return false;
    if (Math.abs(nowMs - Number(stamp) * 1000) > TELNYX_SIGNATURE_TOLERANCE_MS) return false;
    return ed25519Verifies(credentials.signingSecret, `${stamp}|${payload}`, signature);
  },
  streamingCheck({ headers, nowMs, credentials }) {
    const signature = headers.get("telnyx-signature-ed25519");
    if (signature === null) return headerCheck(bearerMatches(headers, credentials.tokenHash));
    const stamp = headers.get("telnyx-timestamp") ?? "";
    if (!/^\d{1,12}$/.test(stamp) || credentials.signingSecret === null) return headerCheck(false);
    if (Math.abs(nowMs - Number(stamp) * 1000) > TELNYX_SIGNATURE_TOLERANCE_MS) return headerCheck(false);
    return ed25519StreamingCheck(credentials.signingSecret, `${stamp}|`, signature);
  },
  messageTypes: {
    pattern: /"event_type"\s*:\s*"([^"]+)"/,
    read: ["assistant.initialization", "call.conversation_insights.generated"],
  },
  read(json): WebhookEvent {
    const data = objectAt(json, "data");
    const type = stringAt(data, "event_type") ?? stringAt(json, "event_type") ?? "";
    const payload = objectAt(data, "payload");
    const callId = stringAt(payload, "call_control_id");
    if (type === "assistant.initialization") {
      return {
        kind: "inbound",
        callId,
        ani: stringAt(payload, "telnyx_end_user_target"),
        dnis: stringAt(payload, "telnyx_agent_target"),
        attestation: readLevel(
          stringAt(payload, "shaken_stir_attestation"),
          booleanAt(payload, "shaken_stir_validated"),
        ),
      };
    }
    if (type === "call.conversation_insights.generated" && callId !== undefined) {
      return { kind: "end", callId, ...insightResults(at(payload, "results")) };
    }
    return { kind: "ignored", type };
  },
  inboundReply(variables) {
    return { dynamic_variables: variables };
  },
};

/**
 * An insight group's results as mapping fields: a structured insight (one with
 * a JSON schema) gives its result's keys, whether Telnyx sends it as an object
 * or as JSON text; a free-form insight gives its text under its insight id,
 * and the first free-form text is the call's summary.
 */
function insightResults(results: unknown): { fields: Record<string, unknown>; summary?: string } {
  const fields: Record<string, unknown> = {};
  let summary: string | undefined;
  for (const entry of Array.isArray(results) ? results : []) {
    const result = at(entry, "result");
    const structured = typeof result === "string" ? parsedObject(result) : result;
    if (typeof structured === "object" && structured !== null && !Array.isArray(structured)) {
      Object.assign(fields, structured);
    } else if (typeof result === "string" && result !== "") {
      const insightId = stringAt(entry, "insight_id");
      if (insightId !== undefined) fields[insightId] = result;
      summary ??= result;
    }
  }
  return { fields, summary };
}

function booleanAt(value: unknown, key: string): boolean | undefined {
  const found = at(value, key);
  return typeof found === "boolean" ? found : undefined;
}

function parsedObject(text: string): unknown {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Telnyx's AI Assistant webhooks as it sends them, signed with the private half of the key pair whose public half
 * the integration holds (`caller-context telnyx-keys` makes one), given as base64 PKCS#8 DER.
 */
function telnyxSimulation(): PlatformSimulation {
  const { json } = simulatedMessage;
  return {
    events: {
      "assistant.initialization": json("inbound", (call) => ({
        data: {
          record_type: "event",
          id: `event_${call.callId}`,
          event_type: "assistant.initialization",
          occurred_at: iso(call.nowMs),
          payload: {
            telnyx_conversation_channel: "phone_call",
            telnyx_agent_target: call.to,
            telnyx_end_user_target: call.from,
            telnyx_end_user_target_verified: false,
            call_control_id: call.callId,
            assistant_id: "assistant-simulated",
          },
        },
      })),
      "call.conversation.ended": json("in-call", (call) => ({
        data: {
          record_type: "event",
          event_type: "call.conversation.ended",
          payload: { call_control_id: call.callId },
        },
      })),
      "call.conversation_insights.generated": json("end", (call) => ({
        data: {
          record_type: "event",
          event_type: "call.conversation_insights.generated",
          id: `insights_${call.callId}`,
          occurred_at: iso(call.nowMs),
          payload: {
            call_control_id: call.callId,
            calling_party_type: "pstn",
            insight_group_id: "insight-group-simulated",
            results: [
              { insight_id: "insight-summary", result: call.summary },
              { insight_id: "insight-analysis", result: analysis(call) },
            ],
          },
        },
      })),
    },
    headers: ({ body, nowMs, signingSecret }) => {
      const timestamp = String(Math.floor(nowMs / 1000));
      const key = createPrivateKey({
        key: Buffer.from(needSigningSecret(signingSecret), "base64"),
        format: "der",
        type: "pkcs8",
      });
      const signature = sign(null, Buffer.from(`${timestamp}|${body}`, "utf8"), key).toString("base64");
      return { "telnyx-signature-ed25519": signature, "telnyx-timestamp": timestamp };
    },
  };
}
