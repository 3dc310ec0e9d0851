import { randomUUID } from "node:crypto";
import type { StartCallInput, StartCallResult } from "../domain/call.ts";
import { type NormalizedHints, normalizeHints } from "../domain/caller-hints.ts";
import { DomainError } from "../domain/domain-error.ts";
import { type Candidate, chooseCandidate, isRecent } from "../domain/identity-match.ts";
import { NO_MATCH, scoreIdentity } from "../domain/identity-score.ts";
import { CALL_ID_REUSE_DAYS, CONTEXT_RETENTION_DAYS } from "../domain/limits.ts";
import type { Tenant } from "../domain/tenant.ts";
import { findCandidates } from "./candidate-query.ts";
import type { Db } from "./database.ts";
import { inTransaction, type Operation } from "./operation.ts";
import { recordStart } from "./record-start.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface CallStoreOptions {
  readonly db: Db;
  readonly defaultRegion: string;
}

/**
 * The start of a call, in one transaction of three statements: read the
 * customers the hints point at, then (once the score has chosen one, or a
 * new customer) record the call with everything it teaches and read the
 * context, then bill it.
 */
export async function startCall(
  options: CallStoreOptions,
  tenant: Tenant,
  input: StartCallInput,
  op: Operation,
): Promise<StartCallResult> {
  const { now } = op;
  const hints = normalizeHints(input.identityHints, input.lineType, options.defaultRegion);
  return inTransaction(options.db, op, async (trx) => {
    const match = await matchCustomer(trx, tenant, hints, now);
    const identity = match?.identity ?? scoreIdentity(NO_MATCH);
    const customerId = match?.customerId ?? randomUUID();
    const written = await recordStart(trx, tenant, {
      callId: input.callId,
      customerId,
      newCustomer: match === undefined,
      hints,
      now,
      reusableBefore: new Date(now.getTime() - CALL_ID_REUSE_DAYS * DAY_MS),
      // "ignore" means: treat as a new caller, so the stored context stays private.
      readContext: match !== undefined && identity.recommendation !== "ignore",
    });
    if (!written.started) throw new DomainError("already_exists", `Call '${input.callId}' already exists`);
    return {
      callId: input.callId,
      customerRef: customerId,
      callStart: now,
      identity,
      openIntents: written.openIntents,
      variables: written.variables,
    };
  });
}

async function matchCustomer(trx: Db, tenant: Tenant, hints: NormalizedHints, now: Date) {
  const matchableSince = new Date(now.getTime() - CONTEXT_RETENTION_DAYS * DAY_MS);
  const facts = await findCandidates(trx, tenant, hints, matchableSince);
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
