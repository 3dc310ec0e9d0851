import { at, objectAt, stringAt, type WebhookEvent } from "../../domain/webhook-event.ts";
import { bearerMatches, headerCheck, tokenMatches } from "../webhook-credentials.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";
import {
  analysis,
  iso,
  needWebhookSecret,
  type PlatformSimulation,
  SIMULATED_CALL_LENGTH_MS,
  type SimulatedCall,
  simulatedMessage,
} from "./platform-simulation.ts";

// Vapi server messages: one server URL receives every message type. The
// credential is the server secret (x-vapi-secret) or a Bearer credential.
// An end-of-call report's fields come from Structured Outputs
// (artifact.structuredOutputs) and from the deprecated analysis plan's
// structuredData; an output wins over structured data of the same name.

export const vapi: PlatformAdapter = {
  label: "Vapi",
  simulation: vapiSimulation(),
  creation: { assistantId: "the assistant that answers inbound calls" },
  authenticate({ headers, credentials }) {
    return (
      tokenMatches(headers.get("x-vapi-secret") ?? undefined, credentials.tokenHash) ||
      bearerMatches(headers, credentials.tokenHash)
    );
  },
  streamingCheck(request) {
    return headerCheck(this.authenticate({ ...request, payload: "" }));
  },
  messageTypes: { pattern: /"type"\s*:\s*"([^"]+)"/, read: ["assistant-request", "end-of-call-report"] },
  read(json): WebhookEvent {
    const message = objectAt(json, "message");
    const type = stringAt(message, "type") ?? "";
    const ani = stringAt(message, "customer", "number") ?? stringAt(message, "call", "customer", "number");
    const dnis = stringAt(message, "phoneNumber", "number");
    const callId = stringAt(message, "call", "id");
    if (type === "assistant-request") return { kind: "inbound", callId, ani, dnis };
    if (type === "end-of-call-report" && callId !== undefined) {
      return {
        kind: "end",
        callId,
        ani,
        dnis,
        fields: { ...objectAt(message, "analysis", "structuredData"), ...structuredOutputFields(message) },
        summary: stringAt(message, "analysis", "summary") ?? stringAt(message, "summary"),
      };
    }
    return { kind: "ignored", type };
  },
  inboundReply(variables, integration) {
    return { assistantId: integration.assistantId, assistantOverrides: { variableValues: variables } };
  },
};

/**
 * Structured Outputs, keyed by the output's id, each `{name, result}`: an output is a field under its name,
 * and an object result's properties are fields too, so one output can carry the intent, its status and the
 * variables together.
 */
function structuredOutputFields(message: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const output of Object.values(objectAt(message, "artifact", "structuredOutputs"))) {
    const name = stringAt(output, "name");
    const result = at(output, "result");
    if (typeof result === "object" && result !== null && !Array.isArray(result)) Object.assign(fields, result);
    if (name !== undefined && result !== undefined && result !== null) fields[name] = result;
  }
  return fields;
}

/** Vapi's server messages as it sends them; its credential is the server secret, sent as it is. */
function vapiSimulation(): PlatformSimulation {
  const { json } = simulatedMessage;
  return {
    events: {
      "assistant-request": json("inbound", (call) => ({
        message: {
          type: "assistant-request",
          timestamp: call.nowMs,
          call: vapiCall(call, "ringing"),
          phoneNumber: { number: call.to, provider: "twilio" },
          customer: { number: call.from },
        },
      })),
      "status-update": json("in-call", (call) => ({
        message: {
          type: "status-update",
          status: "in-progress",
          timestamp: call.nowMs,
          call: vapiCall(call, "in-progress"),
        },
      })),
      "end-of-call-report": json("end", (call) => ({
        message: {
          type: "end-of-call-report",
          timestamp: call.nowMs,
          endedReason: "customer-ended-call",
          call: vapiCall(call, "ended"),
          customer: { number: call.from },
          startedAt: iso(call.nowMs - SIMULATED_CALL_LENGTH_MS),
          endedAt: iso(call.nowMs),
          analysis: { summary: call.summary, structuredData: analysis(call), successEvaluation: "true" },
        },
      })),
    },
    headers: ({ webhookSecret }) => ({ "x-vapi-secret": needWebhookSecret(webhookSecret) }),
  };
}

function vapiCall(call: SimulatedCall, status: string) {
  return {
    id: call.callId,
    orgId: "org_simulated",
    type: "inboundPhoneCall",
    status,
    phoneCallProvider: "twilio",
    phoneCallTransport: "pstn",
    customer: { number: call.from },
  };
}
