import { objectAt, stringAt, type WebhookEvent } from "../../domain/webhook-event.ts";
import { bearerMatches, tokenMatches } from "../webhook-credentials.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";

// Vapi server messages: one server URL receives every message type. The
// credential is the server secret (x-vapi-secret) or a Bearer credential.

export const vapi: PlatformAdapter = {
  authenticate({ headers, credentials }) {
    return (
      tokenMatches(headers.get("x-vapi-secret") ?? undefined, credentials.tokenHash) ||
      bearerMatches(headers, credentials.tokenHash)
    );
  },
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
        fields: objectAt(message, "analysis", "structuredData"),
        summary: stringAt(message, "analysis", "summary") ?? stringAt(message, "summary"),
      };
    }
    return { kind: "ignored", type };
  },
  inboundReply(variables, integration) {
    return { assistantId: integration.assistantId, assistantOverrides: { variableValues: variables } };
  },
};
