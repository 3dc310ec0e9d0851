import { type BuiltBefore, defineEventType } from "./event-type.ts";

// intent.opened: an end made an intent open (new, or open again after a resolution).

export const intentOpened = defineEventType("intent.opened", "a call opens an intent");

export interface IntentOpenedData {
  readonly customer_ref: string;
  readonly call_id: string;
  readonly intent: string;
  /** 1: the end that opens an intent is its first attempt. */
  readonly attempt_count: number;
  readonly resolution: null;
}

/** Known only to the end's statement: the customer it saved to, and the attempts counted so far. */
export type IntentOpenedFromStatement = "customer_ref" | "attempt_count";

export function intentOpenedData(
  callId: string,
  intent: string,
): BuiltBefore<IntentOpenedData, IntentOpenedFromStatement> {
  return { call_id: callId, intent, resolution: null };
}
