import { type Billed, isQuotaExhausted } from "../calls/billed.ts";
import type { CallRequest } from "../calls/call-write.ts";
import type { Integration } from "../domain/integration.ts";
import type { WebhookEvent } from "../domain/webhook-event.ts";
import { answerInbound } from "./answer-inbound.ts";
import { recordCallEnd } from "./record-call-end.ts";
import type { WebhookAnswer } from "./webhook-answer.ts";
import type { WebhookDeps } from "./webhook-deps.ts";

/**
 * A verified webhook of the integration's platform: an inbound call, an end-of-call report, or nothing to do.
 * Billed as the start or end it makes: the answer carries the charge's outcome, or the quota's refusal.
 */
export async function receiveWebhook(
  deps: WebhookDeps,
  request: CallRequest,
  integration: Integration,
  event: WebhookEvent,
): Promise<Billed<WebhookAnswer>> {
  if (event.kind === "inbound") return answerInbound(deps, request, integration, event);
  if (event.kind === "end") {
    const ended = await recordCallEnd(deps, request, integration, event);
    return isQuotaExhausted(ended) ? ended : { value: { reply: ended.value }, charge: ended.charge };
  }
  return { value: { reply: { status: "ignored", type: event.type } } };
}
