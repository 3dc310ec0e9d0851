import { type Bill, writeCall } from "../calls/call-write.ts";
import type { ForgetMeHasher } from "../domain/forget-me.ts";
import { takeCredit } from "../store/billing/charge.ts";
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

/** What each customer operation gets besides its input: the time and the bill (none for an unbilled one). */
export interface CustomerOperation {
  readonly now: Date;
  readonly bill?: Bill;
}

/**
 * Takes the operation's credit, as a call's write does, with `db`: the
 * operation's transaction when it writes, so a refusal undoes its writes.
 */
export async function billOperation(db: Db, op: CustomerOperation): Promise<void> {
  await writeCall(db, op.bill, op.now, () => takeCredit(db, op.bill?.charge, op.now));
}
