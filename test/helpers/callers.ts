import { randomUUID } from "node:crypto";
import type { CallClient, Transport } from "./call-client.ts";

// Callers whose saved context can be recognised later: each has an external id
// and a variable value of its own, so a later start for that id must return
// exactly that value if the end that saved it was committed.

export const SAVED_INTENT = "billing_question";

export interface Caller {
  readonly apiKey: string;
  readonly crmId: string;
  readonly callId: string;
  /** The value its end saves in the variable `marker`. */
  readonly marker: string;
}

export function newCaller(apiKey: string, label = "caller"): Caller {
  const id = randomUUID();
  return { apiKey, crmId: `${label}-${id}`, callId: `${label}-call-${id}`, marker: `marker-${withoutDigits(id)}` };
}

/**
 * The value stays unique but has no digits: digit groups joined by dashes may
 * pass the card-number check, and the end would rightly be refused.
 */
function withoutDigits(id: string): string {
  return id.replace(/[0-9]/g, (digit) => "ghijklmnop"[Number(digit)]);
}

export function startBodyOf(caller: Caller) {
  return { call_id: caller.callId, identity_hints: { external_ids: { crm_id: caller.crmId } } };
}

export function endBodyOf(caller: Caller, customerRef: string) {
  return {
    call_id: caller.callId,
    customer_ref: customerRef,
    intent: SAVED_INTENT,
    intent_status: "open",
    variables: { marker: caller.marker },
  };
}

/** An Idempotency-Key per caller, so an end repeated after a lost answer is saved once. */
export function endHeadersOf(caller: Caller): Record<string, string> {
  return { "Idempotency-Key": `end-${caller.callId}` };
}

/**
 * Reads each caller's context back with a later start (a new call, over REST
 * and gRPC in turn) and returns the callers whose marker or intent is missing,
 * with what was found instead.
 */
export async function unreadableCallers(
  client: CallClient,
  callers: readonly Caller[],
  concurrency = 8,
): Promise<{ caller: Caller; found: unknown }[]> {
  const missing: { caller: Caller; found: unknown }[] = [];
  for (let from = 0; from < callers.length; from += concurrency) {
    const batch = callers.slice(from, from + concurrency);
    await Promise.all(
      batch.map(async (caller, i) => {
        const via: Transport = (from + i) % 2 === 0 ? "rest" : "grpc";
        const later = await client.start(via, caller.apiKey, {
          call_id: `${caller.callId}-later-${randomUUID()}`,
          identity_hints: { external_ids: { crm_id: caller.crmId } },
        });
        const saved =
          later.status === 200 &&
          later.body.variables?.marker?.value === caller.marker &&
          later.body.open_intents?.some((intent: { intent: string }) => intent.intent === SAVED_INTENT);
        if (!saved) missing.push({ caller, found: { status: later.status, body: later.body } });
      }),
    );
  }
  return missing;
}
