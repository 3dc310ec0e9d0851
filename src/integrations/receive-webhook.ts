import type { CallRequest } from "../calls/call-write.ts";
import type { NoContextReason } from "../domain/context-variables.ts";
import type { Integration } from "../domain/integration.ts";
import type { WebhookEvent } from "../domain/webhook-event.ts";
import { answerInbound } from "./answer-inbound.ts";
import { recordCallEnd } from "./record-call-end.ts";
import type { WebhookDeps } from "./webhook-deps.ts";

export interface WebhookAnswer {
  /** The answer in the platform's shape. */
  readonly reply: unknown;
  /** Why an inbound call was answered without context, when it was. */
  readonly noContext?: NoContextReason;
}

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
