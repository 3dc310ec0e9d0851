import type { EndCallCommand, EndCallResult } from "../domain/call.ts";
import { normalizeHints } from "../domain/caller-hints.ts";
import { isCustomerRef } from "../domain/customer-ref.ts";
import { DomainError } from "../domain/domain-error.ts";
import { fingerprintEndCall } from "../domain/idempotency.ts";
import { IDEMPOTENCY_KEY_LIFETIME_MS } from "../domain/limits.ts";
import type { Tenant } from "../domain/tenant.ts";
import { findCallForUpdate, markCallEnded } from "./call-repository.ts";
import { saveIntent, saveVariables } from "./context-repository.ts";
import { customerExists, linkDnis, linkIdentifiers } from "./customer-repository.ts";
import type { Db } from "./database.ts";
import { claimIdempotencyKey, storeIdempotentResponse } from "./idempotency-repository.ts";
import { identifiersOf } from "./identifiers.ts";
import { inTransaction, type Operation } from "./operation.ts";
import type { CallStoreOptions } from "./start-call.ts";

/**
 * The end of a call, in one transaction: claim the idempotency key (or replay
 * the response it already holds), close the call, save intents and variables,
 * and link the hints given at end to the customer.
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

    const call = await findCallForUpdate(trx, tenant, command.callId);
    if (call === undefined) throw new DomainError("not_found", `Call '${command.callId}' was never started`);
    if (call.call_end !== null)
      throw new DomainError("failed_precondition", `Call '${command.callId}' has already ended`);

    const customerId = await resolveCustomer(trx, tenant, command.customerRef, call.customer_id);
    const hints = normalizeHints(command.identityHints, undefined, options.defaultRegion);
    await linkIdentifiers(trx, tenant, customerId, identifiersOf(hints), now);
    if (hints.dnisKey !== undefined) await linkDnis(trx, customerId, hints.dnisKey, now);

    await markCallEnded(trx, tenant, command.callId, customerId, now);
    for (const intent of command.intents) await saveIntent(trx, customerId, intent, now);
    await saveVariables(trx, customerId, command.variables, now);

    const result: EndCallResult = {
      callId: command.callId,
      customerRef: customerId,
      callStart: call.call_start,
      callEnd: now,
      durationSeconds: (now.getTime() - call.call_start.getTime()) / 1000,
      intentsUpdated: command.intents.length,
      variablesUpdated: command.variables.size,
    };
    if (idempotencyKey !== undefined) {
      await storeIdempotentResponse(trx, tenant, idempotencyKey, JSON.stringify(result));
    }
    return result;
  });
}

/**
 * The customer_ref sent at end names the customer the context belongs to
 * (the agent may have identified the caller during the call); without one,
 * the customer matched at start keeps it.
 */
async function resolveCustomer(trx: Db, tenant: Tenant, customerRef: string | undefined, startCustomer: string) {
  if (customerRef === undefined) return startCustomer;
  const id = customerRef.toLowerCase();
  if (!isCustomerRef(customerRef) || !(await customerExists(trx, tenant, id))) {
    throw new DomainError("not_found", `Customer '${customerRef}' not found`);
  }
  return id;
}

function parseStoredResult(json: string): EndCallResult {
  const stored = JSON.parse(json);
  return { ...stored, callStart: new Date(stored.callStart), callEnd: new Date(stored.callEnd) };
}
