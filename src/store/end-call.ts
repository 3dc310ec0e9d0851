import type { EndCallCommand, EndCallResult } from "../domain/call.ts";
import { normalizeHints } from "../domain/caller-hints.ts";
import { isCustomerRef } from "../domain/customer-ref.ts";
import { DomainError } from "../domain/domain-error.ts";
import { fingerprintEndCall } from "../domain/idempotency.ts";
import { IDEMPOTENCY_KEY_LIFETIME_MS } from "../domain/limits.ts";
import type { Tenant } from "../domain/tenant.ts";
import { closeCall, whyNotClosed } from "./close-call.ts";
import { claimIdempotencyKey } from "./idempotency-repository.ts";
import { inTransaction, type Operation } from "./operation.ts";
import { recordEnd } from "./record-end.ts";
import type { CallStoreOptions } from "./start-call.ts";

/**
 * The end of a call, in one transaction: claim the idempotency key (or replay
 * the response it already holds), close the call, save what the call
 * produced, and bill it.
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
  const { now } = op;
  return inTransaction(options.db, op, async (trx) => {
    if (idempotencyKey !== undefined) {
      const requestHash = fingerprintEndCall(command);
      const expiresAt = new Date(now.getTime() + IDEMPOTENCY_KEY_LIFETIME_MS);
      const claim = await claimIdempotencyKey(trx, tenant, idempotencyKey, requestHash, now, expiresAt);
      if (claim.kind === "replay") {
        if (claim.requestHash !== requestHash) {
          throw new DomainError(
            "idempotency_mismatch",
            "Idempotency-Key was already used with a different request body",
          );
        }
        // A replay is a successful call like any other, and is billed as one.
        return parseStoredResult(claim.response);
      }
    }

    const { customerRef } = command;
    const usableRef = customerRef === undefined || isCustomerRef(customerRef);
    const closed = usableRef
      ? await closeCall(trx, tenant, command.callId, customerRef?.toLowerCase(), now)
      : undefined;
    if (closed === undefined) throw await whyNotClosed(trx, tenant, command.callId, customerRef);

    const result: EndCallResult = {
      callId: command.callId,
      customerRef: closed.customerId,
      callStart: closed.callStart,
      callEnd: now,
      durationSeconds: (now.getTime() - closed.callStart.getTime()) / 1000,
      intentsUpdated: command.intents.length,
      variablesUpdated: command.variables.size,
    };
    await recordEnd(trx, tenant, {
      customerId: closed.customerId,
      hints: normalizeHints(command.identityHints, undefined, options.defaultRegion),
      intents: command.intents,
      variables: command.variables,
      now,
      idempotency: idempotencyKey === undefined ? undefined : { key: idempotencyKey, response: JSON.stringify(result) },
    });
    return result;
  });
}

function parseStoredResult(json: string): EndCallResult {
  const stored = JSON.parse(json);
  return { ...stored, callStart: new Date(stored.callStart), callEnd: new Date(stored.callEnd) };
}
