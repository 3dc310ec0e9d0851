// What a simulated platform call says about itself when `simulate` is given no flag beyond the webhook: the fields
// every platform's webhooks carry (SimulatedCall), each in the platform's own shape (its adapter's simulation).

export type { SimulatedCall } from "../../integrations/platforms/platform-simulation.ts";

export const SIMULATED_DEFAULTS = {
  from: "+14155550123",
  to: "+14155550100",
  intent: "billing_question",
  intentStatus: "open",
  summary: "The caller asked about a charge on their last bill.",
} as const;
