import { validationError } from "../domain/domain-error.ts";
import type { Integration } from "../domain/integration.ts";
import type { WebhookEvent } from "../domain/webhook-event.ts";
import { PLATFORM_ADAPTERS } from "./platforms/platform-adapters.ts";

/** What a verified webhook's body means for the integration's platform. */
export function readWebhookEvent(integration: Integration, payload: string, headers: Headers): WebhookEvent {
  return PLATFORM_ADAPTERS[integration.platform].read(parseBody(payload, headers.get("content-type")));
}

/**
 * JSON, or a form (Twilio's widgets send one by default) read as an object of strings. No content type is a
 * GET, whose query string the host passes as the body.
 */
function parseBody(payload: string, contentType: string | null): unknown {
  if (contentType === null || contentType.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(payload));
  }
  try {
    return JSON.parse(payload);
  } catch {
    throw validationError([{ path: [], message: "Malformed JSON" }]);
  }
}
