import type { Integration, IntegrationCredentials } from "../../domain/integration.ts";
import type { WebhookEvent } from "../../domain/webhook-event.ts";
import type { PlatformSimulation } from "./platform-simulation.ts";

// What each platform differs in: how it proves a webhook is its own, what
// its webhooks mean, the shape it expects the inbound answer in, and what the
// rest of the service asks of a platform (its label, its signature header,
// what creating an integration needs, samples of its webhooks).

export interface SignedRequest {
  /** The body exactly as sent. */
  readonly payload: string;
  readonly headers: Headers;
  /** The whole URL as the platform addressed it (Twilio signs it). */
  readonly url: string;
  readonly nowMs: number;
  readonly credentials: IntegrationCredentials;
}

/** A signature check fed a body chunk by chunk, for a body too large to hold whole. */
export interface BodyCheck {
  update(chunk: Buffer): void;
  matches(): boolean;
}

/** Where a message names its type, and the types the service reads (any other is only acknowledged). */
export interface MessageTypes {
  /** Finds a type value (group 1) in the start of a body. */
  readonly pattern: RegExp;
  readonly read: readonly string[];
}

/** What an integration of the platform must be given when it is created. */
export interface CreationNeeds {
  /** What the platform signs its webhooks with, kept as the signing secret ("secret", "public key"); unset: none. */
  readonly signingSecret?: string;
  /** The signing secret's form, in the words the caller reads; undefined when it is fine. */
  checkSigningSecret?(value: string): string | undefined;
  /** What the assistant id names, when the platform's inbound webhook needs one; unset: none. */
  readonly assistantId?: string;
}

export interface PlatformAdapter {
  /** Its name as the dashboard shows it. */
  readonly label: string;
  /**
   * The header its signature travels in, if it signs: with the body it names one message, so that a replay is
   * answered once (src/guards/webhook-replays.ts).
   */
  readonly signatureHeader?: string;
  readonly creation: CreationNeeds;
  authenticate(request: SignedRequest): boolean;
  /**
   * The same check for a body that streams in; undefined when the credential needs the whole body at once
   * (a form's sorted parameters, an Ed25519 signature), and such a body is refused as too large.
   */
  streamingCheck?(request: Omit<SignedRequest, "payload">): BodyCheck | undefined;
  readonly messageTypes?: MessageTypes;
  /**
   * How long the platform waits for its inbound answer, less a margin for the network, when that is shorter
   * than the service's start budget: past it the platform fails the call, so the answer comes without context.
   */
  readonly inboundBudgetMs?: number;
  read(json: unknown): WebhookEvent;
  inboundReply(variables: Record<string, string>, integration: Integration, callId: string): unknown;
  /** Its webhooks as it sends them, and their signing: `caller-context simulate` and docs/platform-payloads.md. */
  readonly simulation: PlatformSimulation;
}
