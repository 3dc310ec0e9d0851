// What a simulated platform call says about itself: the same fields every platform's webhooks carry, in each
// platform's own shape (platform-events.ts). The defaults make `simulate` runnable with no flag beyond the webhook.

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

export const SIMULATED_DEFAULTS = {
  from: "+14155550123",
  to: "+14155550100",
  intent: "billing_question",
  intentStatus: "open",
  summary: "The caller asked about a charge on their last bill.",
} as const;
