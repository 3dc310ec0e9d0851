import type { Db } from "../store/database.ts";

/** What the customer operations need of the store. */
export interface CustomerStore {
  readonly db: Db;
  /** The region a number without country code is read in, as at start. */
  readonly defaultRegion: string;
}
