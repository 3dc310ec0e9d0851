import type { CallRequest } from "../calls/call-deps.ts";
import { validationError } from "../domain/domain-error.ts";
import type { Integration } from "../domain/integration.ts";
import { answerInbound } from "./answer-inbound.ts";
import { PLATFORM_ADAPTERS } from "./platforms/platform-adapters.ts";
import { recordCallEnd } from "./record-call-end.ts";
import type { WebhookDeps } from "./webhook-deps.ts";

/** A verified webhook of the integration's platform: an inbound call, an end-of-call report, or nothing to do. */
export async function receiveWebhook(
  deps: WebhookDeps,
  request: CallRequest,
  integration: Integration,
  payload: string,
): Promise<unknown> {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    throw validationError([{ path: [], message: "Malformed JSON" }]);
  }
  const event = PLATFORM_ADAPTERS[integration.platform].read(json);
  if (event.kind === "inbound") return answerInbound(deps, request, integration, event);
  if (event.kind === "end") return recordCallEnd(deps, request, integration, event);
  return { status: "ignored", type: event.type };
}
