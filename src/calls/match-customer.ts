import type { AbortableQueryOptions } from "kysely";
import type { NormalizedHints } from "../domain/caller-hints.ts";
import type { ForgetMeHasher } from "../domain/forget-me.ts";
import { type Candidate, chooseCandidate, isRecent, type Match } from "../domain/identity-match.ts";
import { matchableSince } from "../domain/retention.ts";
import type { Tenant } from "../domain/tenant.ts";
import {
  type CandidateFacts,
  findCandidates,
  type HeldLinks,
  identifiersOf,
} from "../store/calls/caller-identifiers.ts";
import type { Db } from "../store/database.ts";

/**
 * Whom the hints name: the best customer (undefined when none) with what of the hints it already holds, or that
 * the caller asked not to be remembered.
 */
export type MatchOutcome =
  | { readonly forgotten: false; readonly match?: Match; readonly held?: HeldLinks }
  | { readonly forgotten: true };

/**
 * Who the hints name, as start and identify decide it: every customer of the
 * tenant a hint points at (with a call in the account's retention window) is
 * scored, and the best one chosen; or, when one of the hints' identifiers is
 * marked "do not remember", nobody.
 */
export async function matchCustomer(
  db: Db,
  forgetMe: ForgetMeHasher,
  tenant: Tenant,
  hints: NormalizedHints,
  now: Date,
  retentionDays: number,
  statement: AbortableQueryOptions,
): Promise<MatchOutcome> {
  const identifiers = identifiersOf(hints);
  const hashes = forgetMe.hashes(tenant, identifiers);
  const found = await findCandidates(
    db,
    tenant,
    hints,
    identifiers,
    matchableSince(now, retentionDays),
    now,
    hashes,
    statement,
  );
  if (found.forgotten) return found;
  const match = chooseCandidate(found.candidates.map((fact) => toCandidate(fact, hints, now)));
  const held = found.candidates.find((fact) => fact.customerId === match?.customerId)?.held;
  return { forgotten: false, match, held };
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
