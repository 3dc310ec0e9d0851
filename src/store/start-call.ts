import { randomUUID } from "node:crypto";
import type { StartCallInput, StartCallResult } from "../domain/call.ts";
import { type NormalizedHints, normalizeHints } from "../domain/caller-hints.ts";
import { DomainError } from "../domain/domain-error.ts";
import { type Candidate, chooseCandidate, isRecent } from "../domain/identity-match.ts";
import { NO_MATCH, scoreIdentity } from "../domain/identity-score.ts";
import { CALL_ID_REUSE_DAYS, CONTEXT_RETENTION_DAYS } from "../domain/limits.ts";
import type { Tenant } from "../domain/tenant.ts";
import { insertCall } from "./call-repository.ts";
import { listLiveVariables, listOpenIntents } from "./context-repository.ts";
import {
  findIdentifierHits,
  insertCustomer,
  linkDnis,
  linkIdentifiers,
  loadCustomerFacts,
  touchCustomer,
} from "./customer-repository.ts";
import type { Db } from "./database.ts";
import { identifiersOf } from "./identifiers.ts";
import { inTransaction, type Operation } from "./operation.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface CallStoreOptions {
  readonly db: Db;
  readonly defaultRegion: string;
}

/**
 * The start of a call, in one transaction: find the best-matching customer
 * (or create one), record the call, learn the hints, and read the context.
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
    const customerId = match?.customerId ?? randomUUID();
    if (match === undefined) await insertCustomer(trx, tenant, customerId, now);

    const reusableBefore = new Date(now.getTime() - CALL_ID_REUSE_DAYS * DAY_MS);
    if (!(await insertCall(trx, tenant, input.callId, customerId, now, reusableBefore))) {
      throw new DomainError("already_exists", `Call '${input.callId}' already exists`);
    }
    await linkIdentifiers(trx, tenant, customerId, identifiersOf(hints), now);
    if (hints.dnisKey !== undefined) await linkDnis(trx, customerId, hints.dnisKey, now);
    if (match !== undefined) await touchCustomer(trx, customerId, now);

    const identity = match?.identity ?? scoreIdentity(NO_MATCH);
    // "ignore" means: treat as a new caller, so the stored context stays private.
    const shareContext = identity.recommendation !== "ignore";
    const openIntents = shareContext ? await listOpenIntents(trx, customerId) : [];
    const variables = shareContext ? await listLiveVariables(trx, customerId, now) : {};
    return { callId: input.callId, customerRef: customerId, callStart: now, identity, openIntents, variables };
  });
}

async function matchCustomer(trx: Db, tenant: Tenant, hints: NormalizedHints, now: Date) {
  const hits = await findIdentifierHits(trx, tenant, identifiersOf(hints));
  const ids = new Set(hits.map((hit) => hit.customerId));
  if (hints.customerRef !== undefined) ids.add(hints.customerRef);
  const matchableSince = new Date(now.getTime() - CONTEXT_RETENTION_DAYS * DAY_MS);
  const facts = await loadCustomerFacts(trx, tenant, [...ids], hints.dnisKey, matchableSince);
  const candidates: Candidate[] = facts.map((fact) => {
    const own = hits.filter((hit) => hit.customerId === fact.id);
    const aniMatch = own.some((hit) => hit.kind === "ani");
    return {
      customerId: fact.id,
      lastCallAt: fact.lastCallAt,
      signals: {
        ani: aniMatch ? hints.aniKind : undefined,
        externalId: own.some((hit) => hit.kind === "external_id"),
        customerRef: fact.id === hints.customerRef,
        recentCall: isRecent(fact.lastCallAt, now),
        openIntent: fact.hasOpenIntent,
        dnis: fact.calledDnis,
      },
    };
  });
  return chooseCandidate(candidates);
}
