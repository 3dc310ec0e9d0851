import { randomUUID } from "node:crypto";
import type { AbortableQueryOptions } from "kysely";
import { resolveRefHint } from "../calls/resolve-ref-hint.ts";
import type { StartCallInput, StartCallResult } from "../domain/call.ts";
import { type NormalizedHints, normalizeHints } from "../domain/caller-hints.ts";
import { DomainError } from "../domain/domain-error.ts";
import { type Candidate, chooseCandidate, isRecent } from "../domain/identity-match.ts";
import { NO_MATCH, scoreIdentity } from "../domain/identity-score.ts";
import { CALL_ID_REUSE_DAYS, CONTEXT_RETENTION_DAYS } from "../domain/limits.ts";
import type { Tenant } from "../domain/tenant.ts";
import { findCandidates } from "./candidate-query.ts";
import { refusedWithoutCredit, settleCharge } from "./charge.ts";
import type { Db } from "./database.ts";
import { type CallStoreOptions, type Operation, statementOptions } from "./operation.ts";
import { recordStart } from "./record-start.ts";
import { withinDeadline } from "./refusal.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The start of a call, in two statements: read the customers the hints point
 * at, then (once the score has chosen one, or a new customer) record the call
 * with everything it teaches, read the context and bill it, in one statement
 * that commits on its own. A transaction around both would protect nothing
 * more: at READ COMMITTED each statement sees the data as it is when it runs.
 */
export async function startCall(
  options: CallStoreOptions,
  tenant: Tenant,
  input: StartCallInput,
  op: Operation,
): Promise<StartCallResult> {
  const { now, charge } = op;
  const hints = await resolveRefHint(
    options.db,
    tenant,
    normalizeHints(input.identityHints, input.lineType, options.defaultRegion),
  );
  const statement = statementOptions(options, op);
  const match = await matchCustomer(options.db, tenant, hints, now, statement);
  const identity = match?.identity ?? scoreIdentity(NO_MATCH);
  const customerId = match?.customerId ?? randomUUID();
  const written = await withinDeadline(() =>
    refusedWithoutCredit(charge, () =>
      recordStart(
        options.db,
        tenant,
        {
          callId: input.callId,
          customerId,
          newCustomer: match === undefined,
          hints,
          now,
          reusableBefore: new Date(now.getTime() - CALL_ID_REUSE_DAYS * DAY_MS),
          // "ignore" means: treat as a new caller, so the stored context stays private.
          readContext: match !== undefined && identity.recommendation !== "ignore",
          charge,
          deadline: op.deadline,
        },
        statement,
      ),
    ),
  );
  if (!written.started) throw new DomainError("already_exists", `Call '${input.callId}' already exists`);
  settleCharge(charge, written.creditsLeft);
  return {
    callId: input.callId,
    customerRef: customerId,
    callStart: now,
    identity,
    openIntents: written.openIntents,
    variables: written.variables,
  };
}

export async function matchCustomer(
  db: Db,
  tenant: Tenant,
  hints: NormalizedHints,
  now: Date,
  statement: AbortableQueryOptions,
) {
  const matchableSince = new Date(now.getTime() - CONTEXT_RETENTION_DAYS * DAY_MS);
  const facts = await findCandidates(db, tenant, hints, matchableSince, statement);
  const candidates: Candidate[] = facts.map((fact) => ({
    customerId: fact.customerId,
    lastCallAt: fact.lastCallAt,
    signals: {
      ani: fact.aniMatch ? hints.aniKind : undefined,
      externalId: fact.externalIdMatch,
      customerRef: fact.customerRefMatch,
      recentCall: isRecent(fact.lastCallAt, now),
      openIntent: fact.hasOpenIntent,
      dnis: fact.calledDnis,
    },
  }));
  return chooseCandidate(candidates);
}
