import type { AbortableQueryOptions } from "kysely";
import type { NormalizedHints } from "../domain/caller-hints.ts";
import { type Candidate, chooseCandidate, isRecent, type Match } from "../domain/identity-match.ts";
import { CONTEXT_RETENTION_DAYS, DAY_MS } from "../domain/limits.ts";
import type { Tenant } from "../domain/tenant.ts";
import { type CandidateFacts, findCandidates } from "../store/calls/candidate-query.ts";
import type { Db } from "../store/engine/database.ts";

/**
 * Who the hints name, as start and identify decide it: every customer of the
 * tenant a hint points at (with a call in the retention window) is scored,
 * and the best one chosen; undefined when none.
 */
export async function matchCustomer(
  db: Db,
  tenant: Tenant,
  hints: NormalizedHints,
  now: Date,
  statement: AbortableQueryOptions,
): Promise<Match | undefined> {
  const matchableSince = new Date(now.getTime() - CONTEXT_RETENTION_DAYS * DAY_MS);
  const facts = await findCandidates(db, tenant, hints, matchableSince, statement);
  return chooseCandidate(facts.map((fact) => toCandidate(fact, hints, now)));
}

function toCandidate(fact: CandidateFacts, hints: NormalizedHints, now: Date): Candidate {
  return {
    customerId: fact.customerId,
    lastCallAt: fact.lastCallAt,
    signals: {
      ani: fact.aniMatch ? hints.aniKind : undefined,
      attestation: fact.aniMatch ? hints.aniAttestation : undefined,
      externalId: fact.externalIdMatch,
      customerRef: fact.customerRefMatch,
      recentCall: isRecent(fact.lastCallAt, now),
      openIntent: fact.hasOpenIntent,
      dnis: fact.calledDnis,
    },
  };
}
