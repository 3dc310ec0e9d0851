import type { CallRequest } from "../calls/call-write.ts";
import type { Integration } from "../domain/integration.ts";
import type { WebhookEvent } from "../domain/webhook-event.ts";
import { answerInbound } from "./answer-inbound.ts";
import { recordCallEnd } from "./record-call-end.ts";
import type { WebhookAnswer } from "./webhook-answer.ts";
import type { WebhookDeps } from "./webhook-deps.ts";

/** A verified webhook of the integration's platform: an inbound call, an end-of-call report, or nothing to do. */
export async function receiveWebhook(
  deps: WebhookDeps,
  request: CallRequest,
  integration: Integration,
  event: WebhookEvent,
): Promise<WebhookAnswer> {
  if (event.kind === "inbound") return answerInbound(deps, request, integration, event);
  if (event.kind === "end") return { reply: await recordCallEnd(deps, request, integration, event) };
  return { reply: { status: "ignored", type: event.type } };
}
