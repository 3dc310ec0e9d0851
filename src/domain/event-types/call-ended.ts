import type { IntentStatus } from "../call.ts";
import { type BuiltBefore, defineEventType } from "./event-type.ts";

// call.ended: an end closed a call. Endpoints that opted into variable values receive the values too
// (`variable_values`); the others the names alone.

export const callEnded = defineEventType("call.ended", "a call ends");

export interface CallEndedData {
  readonly call_id: string;
  readonly customer_ref: string;
  /** As PostgreSQL writes a timestamptz in JSON. */
  readonly call_start: string;
  readonly call_end: string;
  readonly duration_seconds: number;
  readonly intents: readonly { readonly intent: string; readonly status: IntentStatus }[];
  /** The names of the variables the end saved. */
  readonly variables: readonly string[];
  /** Only for endpoints that include variable values. */
  readonly variable_values?: Readonly<Record<string, string>>;
}

/** Known only to the end's statement: the call's customer and start, and the end's time as the database writes it. */
export type CallEndedFromStatement = "customer_ref" | "call_start" | "call_end" | "duration_seconds";

export interface CallEndedFacts {
  readonly callId: string;
  readonly intents: readonly { readonly intent: string; readonly status?: IntentStatus }[];
  readonly variables: readonly (readonly [name: string, value: string])[];
}

/** The data without the variables' values, and with them. */
export function callEndedData(end: CallEndedFacts): {
  readonly names: BuiltBefore<CallEndedData, CallEndedFromStatement>;
  readonly withValues: BuiltBefore<CallEndedData, CallEndedFromStatement>;
} {
  const names = {
    call_id: end.callId,
    intents: end.intents.map((i) => ({ intent: i.intent, status: i.status ?? "open" })),
    variables: end.variables.map(([name]) => name),
  };
  return { names, withValues: { ...names, variable_values: Object.fromEntries(end.variables) } };
}
