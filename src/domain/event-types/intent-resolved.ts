import { type BuiltBefore, defineEventType } from "./event-type.ts";

// intent.resolved: an end resolved an intent that was open (or new).

export const intentResolved = defineEventType("intent.resolved", "an open intent is resolved");

export interface IntentResolvedData {
  readonly customer_ref: string;
  readonly call_id: string;
  readonly intent: string;
  /** The attempts the intent had while open; 0 when it was not open. */
  readonly attempt_count: number;
  /** As the end gave it; empty when it gave none. */
  readonly resolution: { readonly type?: string; readonly external_reference?: string };
}

/** Known only to the end's statement: the customer it saved to, and the attempts the intent had. */
export type IntentResolvedFromStatement = "customer_ref" | "attempt_count";

export function intentResolvedData(
  callId: string,
  intent: string,
  resolution: { readonly type: string; readonly externalReference: string } | undefined,
): BuiltBefore<IntentResolvedData, IntentResolvedFromStatement> {
  return {
    call_id: callId,
    intent,
    resolution:
      resolution === undefined ? {} : { type: resolution.type, external_reference: resolution.externalReference },
  };
}
