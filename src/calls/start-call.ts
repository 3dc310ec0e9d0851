import { randomUUID } from "node:crypto";
import type { StartCallInput, StartCallResult } from "../domain/call.ts";
import { normalizeHints } from "../domain/caller-hints.ts";
import { DomainError } from "../domain/domain-error.ts";
import { strangerResult } from "../domain/forget-me.ts";
import type { Match } from "../domain/identity-match.ts";
import { NO_MATCH, scoreIdentity } from "../domain/identity-score.ts";
import { CALL_ID_REUSE_DAYS, DAY_MS } from "../domain/limits.ts";
import { telcoAttestation } from "../domain/telco.ts";
import { validateStartCall } from "../domain/validate-start.ts";
import { isVerifiedCaller } from "../domain/verified-caller.ts";
import { recordForgottenStart } from "../store/calls/record-forgotten.ts";
import { recordStart } from "../store/calls/record-start.ts";
import { type Billed, billedResult, type Done } from "./billed.ts";
import type { CallDeps } from "./call-write.ts";
import { billedBy, type CallRequest, callStatementOf, retryWhenCustomerGone, writeCall } from "./call-write.ts";
import { matchCustomer } from "./match-customer.ts";

/**
 * The start of a call. Who the caller is: the customers the hints point at
 * are scored and the best one chosen, or the caller is a new customer. What
 * is shared: the chosen customer's open intents and live variables, unless
 * the recommendation is "ignore" (treat as a new caller, so the context stays
 * private), and the variables saved with requires_verification only when the
 * start sent the customer's ref (otherwise only their names, as held back).
 * A call_id in use (and started less than 30 days ago) is already_exists.
 * A customer_ref hint that names a merged customer names its survivor. Then
 * two statements: the candidates, then one write that records and bills the
 * call and commits on its own (and reads the context it shares). A caller
 * whose identifiers are marked "do not remember" is answered as a new caller,
 * and only the call's billing row is written. Its answer carries its charge's
 * outcome, or the quota's refusal (then nothing was written).
 */
export async function startCall(
  deps: CallDeps,
  request: CallRequest,
  input: StartCallInput,
): Promise<Billed<StartCallResult>> {
  return billedResult(() => retryWhenCustomerGone(() => startCallOnce(deps, request, input)));
}

async function startCallOnce(
  deps: CallDeps,
  request: CallRequest,
  input: StartCallInput,
): Promise<Done<StartCallResult>> {
  validateStartCall(input, request.decodeIssues);
  const now = deps.clock.now();
  const { tenant } = request;
  const hints = normalizeHints(input.identityHints, input.lineType, deps.defaultRegion, telcoAttestation(input));
  const statement = callStatementOf(deps.inflightAbort, request);
  const matched = await matchCustomer(
    deps.db,
    deps.forgetMe,
    tenant,
    hints,
    now,
    request.retentionDays,
    statement.options,
  );
  const reusableBefore = new Date(now.getTime() - CALL_ID_REUSE_DAYS * DAY_MS);
  if (matched.forgotten) {
    const { written: started, charge } = await writeCall(deps.db, request.charge, now, (billing) =>
      recordForgottenStart(
        deps.db,
        tenant,
        { callId: input.callId, now, reusableBefore },
        billedBy(statement, billing),
      ),
    );
    if (!started.started) throw new DomainError("already_exists", `Call '${input.callId}' already exists`);
    return { value: strangerResult(input.callId, now), charge };
  }
  const { match } = matched;
  const identity = match?.identity ?? scoreIdentity(NO_MATCH);
  const customerId = match?.customerId ?? randomUUID();
  const { written, charge } = await writeCall(deps.db, request.charge, now, (billing) =>
    recordStart(
      deps.db,
      tenant,
      {
        callId: input.callId,
        customerId,
        newCustomer: match === undefined,
        hints,
        held: matched.held,
        now,
        reusableBefore,
        share: { readContext: shareContext(match), verified: isVerifiedCaller(identity) },
      },
      billedBy(statement, billing),
    ),
  );
  if (!written.started) throw new DomainError("already_exists", `Call '${input.callId}' already exists`);
  const value: StartCallResult = {
    callId: input.callId,
    customerRef: customerId,
    callStart: now,
    identity,
    openIntents: written.openIntents,
    variables: written.variables,
    recentCalls: written.recentCalls,
    heldBackVariables: written.heldBackVariables,
  };
  return { value, charge };
}

function shareContext(match: Match | undefined): boolean {
  return match !== undefined && match.identity.recommendation !== "ignore";
}
