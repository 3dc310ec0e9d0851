import { objectAt, stringAt, type WebhookEvent } from "../../domain/webhook-event.ts";
import { bearerMatches } from "../webhook-credentials.ts";
import type { PlatformAdapter } from "./platform-adapter.ts";

// Twilio Studio's HTTP Request widget sends the JSON the flow author writes
// (docs/integrations.md gives it) with the integration's secret as a Bearer
// header, and reads a flat JSON object back as `widgets.<name>.parsed`.

export const twilioStudio: PlatformAdapter = {
  authenticate({ headers, credentials }) {
    return bearerMatches(headers, credentials.tokenHash);
  },
  read(json): WebhookEvent {
    const event = stringAt(json, "event") ?? "";
    const callId = stringAt(json, "call_sid");
    const ani = stringAt(json, "from");
    const dnis = stringAt(json, "to");
    if (event === "inbound") return { kind: "inbound", callId, ani, dnis };
    if (event === "end" && callId !== undefined) {
      return { kind: "end", callId, ani, dnis, fields: objectAt(json), summary: stringAt(json, "summary") };
    }
    return { kind: "ignored", type: event };
  },
  inboundReply(variables) {
    return variables;
  },
};
