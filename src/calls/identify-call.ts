import type { IdentifyCallInput, StartCallResult } from "../domain/call.ts";
import { normalizeHints } from "../domain/caller-hints.ts";
import { strangerResult } from "../domain/forget-me.ts";
import { NO_MATCH, scoreIdentity, verifiedIdentity } from "../domain/identity-score.ts";
import { validateStartCall } from "../domain/validate-start.ts";
import { isVerifiedCaller } from "../domain/verified-caller.ts";
import { takeCredit } from "../store/billing/charge.ts";
import { recordIdentify } from "../store/calls/record-identify.ts";
import { foldEmptiedCustomer } from "../store/customer-changes.ts";
import { type Billed, billedResult, type Done } from "./billed.ts";
import type { CallDeps } from "./call-write.ts";
import {
  billedBy,
  type CallRequest,
  CustomerGoneError,
  callStatementOf,
  retryWhenCustomerGone,
  writeCall,
} from "./call-write.ts";
import { matchCustomer } from "./match-customer.ts";
import { openCall } from "./open-call.ts";

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
): Promise<Billed<StartCallResult>> {
  return billedResult(() => retryWhenCustomerGone(() => identifyCallOnce(deps, request, input)));
}

async function identifyCallOnce(
  deps: CallDeps,
  request: CallRequest,
  input: IdentifyCallInput,
): Promise<Done<StartCallResult>> {
  validateStartCall({ callId: input.callId, identityHints: input.identityHints }, request.decodeIssues);
  const now = deps.clock.now();
  const { db } = deps;
  const { tenant } = request;
  const call = await openCall(db, tenant, input.callId);

  const statement = callStatementOf(deps.inflightAbort, request);
  const hints = normalizeHints(input.identityHints, undefined, deps.defaultRegion);
  // A forgotten caller's call has no customer: it stays a stranger's, whatever the hints say now.
  if (call.customerId === null) return identifyForgottenCall(deps, request, input.callId, now);
  const matched = await matchCustomer(db, deps.forgetMe, tenant, hints, now, request.retentionDays, statement.options);
  if (matched.forgotten) return identifyForgottenCall(deps, request, input.callId, now);
  const { match } = matched;
  const identity = input.verified ? verifiedIdentity(match?.identity) : (match?.identity ?? scoreIdentity(NO_MATCH));
  const customerId = match?.customerId ?? call.customerId;
  const { written, charge } = await writeCall(db, request.charge, now, (billing) =>
    recordIdentify(
      db,
      tenant,
      {
        callId: input.callId,
        customerId,
        link: input.verified ? hints : undefined,
        now,
        // As at start: "ignore" keeps a stranger's context private; a caller not verified hears no variable saved
        // with requires_verification.
        share: { readContext: identity.recommendation !== "ignore", verified: isVerifiedCaller(identity) },
      },
      billedBy(statement, billing),
    ),
  );
  if (!written.moved) {
    // Between the look and the write the call ended, went with an erased customer, or the customer found was
    // erased or merged away (then the retry looks again).
    await openCall(db, tenant, input.callId);
    throw new CustomerGoneError();
  }
  // A verified caller took the call and its number to the customer they proved to be: the record the start made
  // for the stranger they seemed, left holding nothing, becomes an alias of that customer.
  if (input.verified && customerId !== call.customerId) {
    await foldEmptiedCustomer(db, tenant, call.customerId, customerId, now);
  }
  const value: StartCallResult = {
    callId: input.callId,
    customerRef: customerId,
    callStart: written.callStart,
    identity,
    openIntents: written.openIntents,
    variables: written.variables,
    recentCalls: written.recentCalls,
    heldBackVariables: written.heldBackVariables,
  };
  return { value, charge };
}

/**
 * A call from a caller marked "do not remember", or one naming such a caller, stays a stranger's: answered as a
 * new caller, billed, and nothing is saved or moved.
 */
async function identifyForgottenCall(
  deps: CallDeps,
  request: CallRequest,
  callId: string,
  now: Date,
): Promise<Done<StartCallResult>> {
  const { charge } = await writeCall(deps.db, request.charge, now, (billing) => takeCredit(deps.db, billing, now));
  return { value: strangerResult(callId, now), charge };
}
