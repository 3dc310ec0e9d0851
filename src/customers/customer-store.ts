import { type Billed, type ChargeOutcome, isQuotaExhausted } from "../calls/billed.ts";
import { writeCall } from "../calls/call-write.ts";
import { DomainError } from "../domain/domain-error.ts";
import type { ForgetMeHasher } from "../domain/forget-me.ts";
import { takeCredit } from "../store/billing/charge.ts";
import type { Charge } from "../store/calls/call-statement.ts";
import type { Db } from "../store/database.ts";

/** What the customer operations need of the store. */
export interface CustomerStore {
  readonly db: Db;
  /** The region a number without country code is read in, as at start. */
  readonly defaultRegion: string;
  /** Told after each erasure, so the erased rows leave the disk (jobs/erasure-compaction.ts). */
  readonly erasures: { request(): void };
  /** Hashes identifiers for the "do not remember" marks. */
  readonly forgetMe: ForgetMeHasher;
}

/** What each customer operation gets besides its input: the time and the charge (none for an unbilled one). */
export interface CustomerOperation {
  readonly now: Date;
  readonly charge?: Charge;
}

/**
 * Takes the operation's credit, as a call's write does, with `db`: the
 * operation's transaction when it writes, so a refusal (NoCreditLeftError)
 * undoes its writes. What became of the charge is returned.
 */
export async function billOperation(db: Db, op: CustomerOperation): Promise<ChargeOutcome | undefined> {
  const { charge } = await writeCall(db, op.charge, op.now, (billing) => takeCredit(db, billing, op.now));
  return charge;
}

/** A billed operation's value for a caller that passed no charge (the dashboard), which nothing can refuse. */
export async function unbilled<T>(billed: Promise<Billed<T>>): Promise<T> {
  const answer = await billed;
  if (isQuotaExhausted(answer)) throw new DomainError("internal", "An operation without a charge was refused credit");
  return answer.value;
}
