import type { NoContextReason } from "../domain/context-variables.ts";

/** What a verified webhook is answered with. */
export interface WebhookAnswer {
  /** The answer in the platform's shape. */
  readonly reply: unknown;
  /** Why an inbound call was answered without context, when it was. */
  readonly noContext?: NoContextReason;
}
