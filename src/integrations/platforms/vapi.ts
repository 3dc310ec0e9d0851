import { at, objectAt, stringAt, type WebhookEvent } from "../../domain/webhook-event.ts";
import { bearerMatches, headerCheck, tokenMatches } from "../webhook-credentials.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";

// Vapi server messages: one server URL receives every message type. The
// credential is the server secret (x-vapi-secret) or a Bearer credential.
// An end-of-call report's fields come from Structured Outputs
// (artifact.structuredOutputs) and from the deprecated analysis plan's
// structuredData; an output wins over structured data of the same name.

export const vapi: PlatformAdapter = {
  label: "Vapi",
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
