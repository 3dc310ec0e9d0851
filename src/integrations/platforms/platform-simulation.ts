import { createHmac } from "node:crypto";

// How a platform's webhooks look and how it signs them, for `caller-context simulate` (src/cli/simulate-commands.ts)
// and docs/platform-payloads.md: each adapter carries its own, so that a platform is one file. The samples are in
// the shape the platform sends (as its API reference shows, and as the tests' fixtures under
// test/integrations/fixtures hold them, which test/cli/simulate-payloads.test.ts compares them with); field names
// the service reads are the platform's, and the rest is there so that the body looks like the real one.

/** What a simulated platform call says about itself: the same fields every platform's webhooks carry. */
export interface SimulatedCall {
  /** The platform's own call id; Retell's inbound has none (the service gives one in its answer). */
  readonly callId: string;
  /** The caller's number, and the number they called. */
  readonly from: string;
  readonly to: string;
  readonly intent: string;
  readonly intentStatus: "open" | "resolved";
  readonly summary: string;
  /** Values the end-of-call analysis extracted; the integration's `--variables` picks which are saved. */
  readonly variables: Readonly<Record<string, string>>;
  readonly nowMs: number;
}

/** The inbound asks for context, the end is saved, and any other message is only acknowledged. */
export type EventKind = "inbound" | "in-call" | "end";

export interface PlatformEvent {
  readonly kind: EventKind;
  readonly contentType: "application/json" | "application/x-www-form-urlencoded";
  body(call: SimulatedCall): string;
}

export interface SigningInput {
  readonly kind: EventKind;
  readonly body: string;
  readonly url: string;
  readonly nowMs: number;
  /** The integration's webhook secret (whsec_…), as `integrations create` printed it. */
  readonly webhookSecret: string;
  /** The platform's own secret (an API key, an HMAC secret, an auth token, the private half of a key pair). */
  readonly signingSecret?: string;
}

export interface PlatformSimulation {
  /** The messages by the name the platform gives their type: its inbound, one it only needs acknowledged, its end. */
  readonly events: Readonly<Record<string, PlatformEvent>>;
  /** What the platform sends where it signs, and what it sends where it does not need to. */
  headers(input: SigningInput): Record<string, string>;
  /** The call id the end must carry, from the service's inbound answer, when the platform's inbound has none. */
  inboundCallId?(answer: unknown): string;
}

const json = (kind: EventKind, build: (call: SimulatedCall) => unknown): PlatformEvent => ({
  kind,
  contentType: "application/json",
  body: (call) => JSON.stringify(build(call)),
});
const form = (kind: EventKind, build: (call: SimulatedCall) => Record<string, string>): PlatformEvent => ({
  kind,
  contentType: "application/x-www-form-urlencoded",
  body: (call) => new URLSearchParams(build(call)).toString(),
});
/** A message sent as JSON, and one sent as a form. */
export const simulatedMessage = { json, form };

/** The analysis fields: intent, its status and the variables, as one flat object. */
export const analysis = (call: SimulatedCall) => ({
  intent: call.intent,
  intent_status: call.intentStatus,
  ...call.variables,
});
export const iso = (ms: number) => new Date(ms).toISOString();
export const seconds = (ms: number) => Math.floor(ms / 1000);
export const SIMULATED_CALL_LENGTH_MS = 95_000;

export const hmacHex = (secret: string, message: string) => createHmac("sha256", secret).update(message).digest("hex");

/** The platform's own secret, which a signature needs. */
export function needSigningSecret(secret: string | undefined): string {
  if (!secret) throw new MissingSecretError("signing");
  return secret;
}

/** The integration's webhook secret, which a platform that does not sign sends as it is. */
export function needWebhookSecret(secret: string): string {
  if (!secret) throw new MissingSecretError("webhook");
  return secret;
}

/** A secret the platform would send is missing: the operator's mistake, which the caller words for its flags. */
export class MissingSecretError extends Error {
  readonly secret: "signing" | "webhook";
  constructor(secret: "signing" | "webhook") {
    super(`the ${secret} secret is missing`);
    this.secret = secret;
    this.name = "MissingSecretError";
  }
}
