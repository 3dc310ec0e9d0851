import type { Charge } from "../store/billing/charge.ts";
import type { Db } from "../store/engine/database.ts";

/** What the customer operations need of the store. */
export interface CustomerStore {
  readonly db: Db;
  /** The region a number without country code is read in, as at start. */
  readonly defaultRegion: string;
  /** Told after each erasure, so the erased rows leave the disk (store/jobs/erasure-compaction.ts). */
  readonly erasures: { request(): void };
}

/** What each customer operation gets besides its input: the time and the bill (none for an unbilled one). */
export interface CustomerOperation {
  readonly now: Date;
  readonly charge?: Charge;
}
