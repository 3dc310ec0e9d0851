import { randomUUID } from "node:crypto";
import type { EndCallInput, EndCallResult } from "../domain/call.ts";
import { normalizeHints } from "../domain/caller-hints.ts";
import { isCustomerRef } from "../domain/customer-ref.ts";
import { DomainError, validationError } from "../domain/domain-error.ts";
import { fingerprintEndCall } from "../domain/idempotency.ts";
import { IDEMPOTENCY_KEY_LIFETIME_MS, MAX_IDEMPOTENCY_KEY_LENGTH } from "../domain/limits.ts";
import { validateEndCall } from "../domain/validate-end.ts";
import { findStoredEnd } from "../store/calls/idempotency-repository.ts";
import { type EndRecord, recordEnd } from "../store/calls/record-end.ts";
import { recordForgottenEnd } from "../store/calls/record-forgotten.ts";
import { resolveCustomerRef } from "../store/customer-repository.ts";
import { type Billed, billedResult, type ChargeOutcome, type Done, laterCharge } from "./billed.ts";
import type { CallDeps } from "./call-write.ts";
import {
  billedBy,
  type CallRequest,
  CustomerGoneError,
  callStatementOf,
  retryWhenCustomerGone,
  writeCall,
} from "./call-write.ts";
import { openCall } from "./open-call.ts";

/**
 * The end of a call. Whose context it is: the customer_ref sent at end (the
 * agent may have identified the caller during the call), else the customer
 * matched at start. What an Idempotency-Key means: the first successful end
 * with it is kept with its result for 24 hours; the same request again gets
 * that result (billed like any call), a different request under the key is
 * idempotency_mismatch, and only successful ends are kept, so a failed end
 * may be retried with its key. One statement closes the call, claims the key,
 * saves what the call produced and bills it (following a merged customer's
 * ref to its survivor); only when it closed nothing does a second look say why.
 * A call from a caller marked "do not remember" is closed and billed by that
 * second look, and nothing it sent is saved (nor its Idempotency-Key). The
 * statement leaves the end's events out unless the tenant's ends lately found
 * an endpoint taking them; one that finds such an endpoint in its snapshot
 * undoes itself and runs again with them (src/calls/end-event-listeners.ts).
 */
export async function endCall(
  deps: CallDeps,
  request: CallRequest,
  input: EndCallInput,
  idempotencyKey?: string,
): Promise<Billed<EndCallResult>> {
  return billedResult(() => retryWhenCustomerGone(() => endCallOnce(deps, request, input, idempotencyKey)));
}

async function endCallOnce(
  deps: CallDeps,
  request: CallRequest,
  input: EndCallInput,
  idempotencyKey?: string,
): Promise<Done<EndCallResult>> {
  const command = validateEndCall(input, deps.sensitiveData, request.decodeIssues);
  checkIdempotencyKey(idempotencyKey);
  const now = deps.clock.now();
  const { tenant } = request;
  const statement = callStatementOf(deps.inflightAbort, request);
  const claim =
    idempotencyKey === undefined
      ? undefined
      : {
          key: idempotencyKey,
          requestHash: fingerprintEndCall(command),
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_LIFETIME_MS),
        };
  const { customerRef } = command;
  // The statement itself follows a merged customer's ref to its survivor.
  const target = customerRef !== undefined && isCustomerRef(customerRef) ? customerRef.toLowerCase() : undefined;

  let keyTaken = false;
  // What the statements took: the last that took a credit says how many are left.
  let charge: ChargeOutcome | undefined;
  // A customer_ref that is not a UUID names no customer: nothing to close.
  if (customerRef === undefined || isCustomerRef(customerRef)) {
    const record: EndRecord = {
      callId: command.callId,
      customerRef: target,
      hints: normalizeHints(command.identityHints, undefined, deps.defaultRegion),
      intents: command.intents,
      variables: command.variables,
      summary: command.summary,
      now,
      idempotency: claim,
      withEvents: deps.endEventListeners.expected(tenant),
    };
    let end = await writeCall(deps.db, request.charge, now, (billing) =>
      recordEnd(deps.db, tenant, record, billedBy(statement, billing)),
    );
    if (!end.written.ended && end.written.unwritten === "events-wanted") {
      // Undone whole, charge included: an endpoint takes the end's events, so it is written again with them.
      deps.endEventListeners.found(tenant);
      end = await writeCall(deps.db, request.charge, now, (billing) =>
        recordEnd(deps.db, tenant, { ...record, withEvents: true }, billedBy(statement, billing)),
      );
    }
    charge = laterCharge(charge, end.charge);
    const { written } = end;
    if (written.ended) return { value: parseEndResult(written.result), charge };
    keyTaken = written.unwritten === "key-taken";
  }

  if (claim !== undefined) {
    const look = await writeCall(deps.db, request.charge, now, (billing) =>
      findStoredEnd(deps.db, tenant, claim.key, claim.requestHash, now, billedBy(statement, billing)),
    );
    charge = laterCharge(charge, look.charge);
    const stored = look.written;
    if (stored.kind === "mismatch") {
      throw new DomainError("idempotency_mismatch", "Idempotency-Key was already used with a different request body");
    }
    if (stored.kind === "replay") return { value: parseEndResult(stored.response), charge };
    // The key was held a moment ago and has just expired: nothing was written, so a retry is safe.
    if (keyTaken) throw new DomainError("unavailable", "Idempotency-Key changed hands; retry the request");
  }
  const closing = await writeCall(deps.db, request.charge, now, (billing) =>
    recordForgottenEnd(
      deps.db,
      tenant,
      { callId: command.callId, now, again: claim !== undefined },
      billedBy(statement, billing),
    ),
  );
  charge = laterCharge(charge, closing.charge);
  const forgotten = closing.written;
  if (forgotten.ended) {
    const value: EndCallResult = {
      callId: command.callId,
      customerRef: target ?? randomUUID(),
      callStart: forgotten.callStart,
      callEnd: forgotten.callEnd,
      durationSeconds: (forgotten.callEnd.getTime() - forgotten.callStart.getTime()) / 1000,
      intentsUpdated: 0,
      variablesUpdated: 0,
    };
    return { value, charge };
  }
  await openCall(deps.db, tenant, command.callId);
  // The call is open, so the customer the statement locked went before it could (merged away or erased), or the
  // call moved from it meanwhile: the retry looks again, following a merge. Only a ref that names nobody now is
  // not found.
  if (customerRef === undefined || (target !== undefined && (await resolveCustomerRef(deps.db, tenant, target)))) {
    throw new CustomerGoneError();
  }
  throw new DomainError("not_found", `Customer '${customerRef}' not found`);
}

function checkIdempotencyKey(key: string | undefined): void {
  if (key !== undefined && (key === "" || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)) {
    throw validationError([
      { path: ["Idempotency-Key"], message: `Must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` },
    ]);
  }
}

/** The result as the end's statement wrote it, for a first end and its replays alike. */
function parseEndResult(json: string): EndCallResult {
  const stored = JSON.parse(json);
  return { ...stored, callStart: new Date(stored.callStart), callEnd: new Date(stored.callEnd) };
}
