import type { IdentifyCallInput, StartCallResult } from "../domain/call.ts";
import { normalizeHints } from "../domain/caller-hints.ts";
import { DomainError } from "../domain/domain-error.ts";
import { NO_MATCH, scoreIdentity, verifiedIdentity } from "../domain/identity-score.ts";
import { validateStartCall } from "../domain/validate-start.ts";
import { refusedWithoutCredit, settleCharge } from "../store/billing/charge.ts";
import { withinDeadline } from "../store/billing/refusal.ts";
import { findCallState } from "../store/calls/call-repository.ts";
import { statementOptions } from "../store/calls/operation.ts";
import { recordIdentify } from "../store/calls/record-identify.ts";
import type { CallDeps, CallRequest } from "./call-deps.ts";
import { CustomerGoneError, retryWhenCustomerGone } from "./customer-gone.ts";
import { matchCustomer } from "./match-customer.ts";

/**
 * Identifies the caller of an open call again, with what the agent learnt
 * during it. The hints are validated, matched and scored as at start; the
 * call moves to the customer found (without a match it stays where start put
 * it), so the end saves there. A verified caller is certain: their hints and
 * the call's number are linked to them at once. Billed as one call, in the
 * statement that moves the call.
 */
export async function identifyCall(
  deps: CallDeps,
  request: CallRequest,
  input: IdentifyCallInput,
): Promise<StartCallResult> {
  return retryWhenCustomerGone(() => identifyCallOnce(deps, request, input));
}

async function identifyCallOnce(
  deps: CallDeps,
  request: CallRequest,
  input: IdentifyCallInput,
): Promise<StartCallResult> {
  validateStartCall({ callId: input.callId, identityHints: input.identityHints });
  const now = deps.clock.now();
  const { db } = deps;
  const { tenant, charge } = request;
  const call = await findCallState(db, tenant, input.callId);
  if (call === undefined) throw neverStarted(input.callId);
  if (call.ended) throw ended(input.callId);

  const statement = statementOptions(deps.inflightAbort, request.signal);
  const hints = normalizeHints(input.identityHints, undefined, deps.defaultRegion);
  const match = await matchCustomer(db, tenant, hints, now, statement);
  const identity = input.verified ? verifiedIdentity(match?.identity) : (match?.identity ?? scoreIdentity(NO_MATCH));
  const customerId = match?.customerId ?? call.customerId;
  const written = await withinDeadline(() =>
    refusedWithoutCredit(db, charge, now, () =>
      recordIdentify(
        db,
        tenant,
        {
          callId: input.callId,
          customerId,
          link: input.verified ? hints : undefined,
          now,
          // As at start: "ignore" keeps a stranger's context private.
          readContext: identity.recommendation !== "ignore",
          charge,
          deadline: request.deadline,
        },
        statement,
      ),
    ),
  );
  if (!written.moved) {
    // Between the look and the write the call ended, went with an erased customer, or the customer found was
    // erased or merged away (then the retry looks again).
    const state = await findCallState(db, tenant, input.callId);
    if (state === undefined) throw neverStarted(input.callId);
    if (state.ended) throw ended(input.callId);
    throw new CustomerGoneError();
  }
  settleCharge(charge, written.creditsLeft);
  return {
    callId: input.callId,
    customerRef: customerId,
    callStart: written.callStart,
    identity,
    openIntents: written.openIntents,
    variables: written.variables,
  };
}

function neverStarted(callId: string): DomainError {
  return new DomainError("not_found", `Call '${callId}' was never started`);
}

function ended(callId: string): DomainError {
  return new DomainError("failed_precondition", `Call '${callId}' has already ended`);
}
