import type { Integration } from "../domain/integration.ts";
import type { Principal } from "../domain/principal.ts";
import type { BodyCheck } from "../integrations/platforms/platform-adapter.ts";

// What a credential is checked against: an API key, or a platform webhook's signature. The verifiers
// themselves (cached lookups) are src/guards/authenticate.ts (keys) and src/guards/webhook-verifier.ts.

/** A refused webhook's message, from the guard and from the host of a body too large to hold alike. */
export const WEBHOOK_REFUSED_MESSAGE = "Invalid or missing webhook signature";
/** Sent with every webhook refusal: HTTP clients given `user:pass@` in a URL send it only when challenged. */
export const WEBHOOK_BASIC_CHALLENGE = 'Basic realm="Caller Context webhooks", charset="UTF-8"';

export type Verification =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly message: string };

export interface KeyVerifier {
  verify(authorization: string | null): Promise<Verification>;
  forgetAll(): void;
}

export type WebhookVerification =
  | { readonly ok: true; readonly principal: Principal; readonly integration: Integration }
  | { readonly ok: false };

export interface WebhookVerifier {
  verify(webhookId: string, payload: string, headers: Headers, url: string): Promise<WebhookVerification>;
  /**
   * For a body too large to hold: the integration's platform and a check to feed the body through as it
   * streams, or undefined when the URL names no integration or its credential needs the whole body.
   */
  streamingCheck(webhookId: string, headers: Headers, url: string): Promise<StreamingVerification | undefined>;
  /** Drops cached integrations: one was deleted, or an account's tier changed. */
  forgetAll(): void;
}

export interface StreamingVerification {
  readonly integration: Integration;
  readonly check: BodyCheck;
}
