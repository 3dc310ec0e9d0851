import type { Integration, IntegrationCredentials } from "../../domain/integration.ts";
import type { WebhookEvent } from "../../domain/webhook-event.ts";

// What each platform differs in: how it proves a webhook is its own, what
// its webhooks mean, and the shape it expects the inbound answer in.

export interface SignedRequest {
  /** The body exactly as sent. */
  readonly payload: string;
  readonly headers: Headers;
  /** The whole URL as the platform addressed it (Twilio signs it). */
  readonly url: string;
  readonly nowMs: number;
  readonly credentials: IntegrationCredentials;
}

export interface PlatformAdapter {
  authenticate(request: SignedRequest): boolean;
  read(json: unknown): WebhookEvent;
  inboundReply(variables: Record<string, string>, integration: Integration, callId: string): unknown;
}
