import type { EndCallCommand, EndCallResult } from "../domain/call.ts";
import { normalizeHints } from "../domain/caller-hints.ts";
import { isCustomerRef } from "../domain/customer-ref.ts";
import { DomainError } from "../domain/domain-error.ts";
import { fingerprintEndCall } from "../domain/idempotency.ts";
import { IDEMPOTENCY_KEY_LIFETIME_MS } from "../domain/limits.ts";
import type { Tenant } from "../domain/tenant.ts";
import { refusedWithoutCredit, settleCharge } from "./charge.ts";
import { resolveCustomerRef } from "./customer-repository.ts";
import { findStoredEnd } from "./idempotency-repository.ts";
import { type CallStoreOptions, type Operation, statementOptions } from "./operation.ts";
import { recordEnd } from "./record-end.ts";
import { withinDeadline } from "./refusal.ts";
import { whyNotClosed } from "./why-not-closed.ts";

/**
 * The end of a call. One statement closes the call, claims the
 * Idempotency-Key, saves what the call produced and bills it. Only when it
 * closed nothing does a second look say why: the key already holds an end
 * (replayed, or refused when the request differs), or the call was never
 * started, has ended, or the customer is unknown.
 *
 * The customer_ref sent at end names the customer the context belongs to
 * (the agent may have identified the caller during the call); without one,
 * the customer matched at start keeps it.
 */
export async function endCall(
  options: CallStoreOptions,
  tenant: Tenant,
  command: EndCallCommand,
  idempotencyKey: string | undefined,
  op: Operation,
): Promise<EndCallResult> {
  const { now, charge } = op;
  const statement = statementOptions(options, op);
  const claim =
    idempotencyKey === undefined
      ? undefined
      : {
          key: idempotencyKey,
          requestHash: fingerprintEndCall(command),
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_LIFETIME_MS),
        };
  const { customerRef } = command;
  // A merged customer's ref names its survivor; a ref that names nobody stays as sent (404 below).
  const target =
    customerRef !== undefined && isCustomerRef(customerRef)
      ? ((await resolveCustomerRef(options.db, tenant, customerRef.toLowerCase())) ?? customerRef.toLowerCase())
      : undefined;

  let keyTaken = false;
  if (customerRef === undefined || isCustomerRef(customerRef)) {
    const written = await withinDeadline(() =>
      refusedWithoutCredit(charge, () =>
        recordEnd(
          options.db,
          tenant,
          {
            callId: command.callId,
            customerRef: target,
            hints: normalizeHints(command.identityHints, undefined, options.defaultRegion),
            intents: command.intents,
            variables: command.variables,
            now,
            idempotency: claim,
            charge,
            deadline: op.deadline,
          },
          statement,
        ),
      ),
    );
    if (written.ended) {
      settleCharge(charge, written.creditsLeft);
      return {
        callId: command.callId,
        customerRef: written.customerId,
        callStart: written.callStart,
        callEnd: now,
        durationSeconds: (now.getTime() - written.callStart.getTime()) / 1000,
        intentsUpdated: command.intents.length,
        variablesUpdated: command.variables.size,
      };
    }
    keyTaken = written.keyTaken;
  }

  if (claim !== undefined) {
    const stored = await refusedWithoutCredit(charge, () =>
      findStoredEnd(options.db, tenant, claim.key, claim.requestHash, now, charge, statement),
    );
    if (stored.kind === "mismatch") {
      throw new DomainError("idempotency_mismatch", "Idempotency-Key was already used with a different request body");
    }
    if (stored.kind === "replay") {
      settleCharge(charge, stored.creditsLeft);
      return parseStoredResult(stored.response);
    }
    // The key was held a moment ago and has just expired: nothing was written, so a retry is safe.
    if (keyTaken) throw new DomainError("unavailable", "Idempotency-Key changed hands; retry the request");
  }
  throw await whyNotClosed(options.db, tenant, command.callId, customerRef);
}

function parseStoredResult(json: string): EndCallResult {
  const stored = JSON.parse(json);
  return { ...stored, callStart: new Date(stored.callStart), callEnd: new Date(stored.callEnd) };
}
