import type { AbortableQueryOptions, InflightQueryAbortStrategy } from "kysely";
import type { Charge } from "./charge.ts";
import type { Db } from "./database.ts";

/** What the call operations need of the store besides their input. */
export interface CallStoreOptions {
  readonly db: Db;
  readonly defaultRegion: string;
  /** What stops a statement already sent when its request is aborted (see createDatabase). */
  readonly inflightAbort: InflightQueryAbortStrategy;
}

/** What every call operation gets besides its input: the time, the bill, the request's signal. */
export interface Operation {
  readonly now: Date;
  readonly charge?: Charge;
  readonly signal?: AbortSignal;
  /** Epoch ms (real time) after which the call's write must not commit: its client was already answered. */
  readonly deadline?: number;
}

/**
 * Options for each statement of an operation. A start and an end each commit
 * with their own last statement, so work nobody waits for any longer is
 * stopped statement by statement: one not yet sent is not sent (also after
 * waiting for a connection), and on PostgreSQL one that is running is
 * cancelled, which rolls it back.
 */
export function statementOptions(store: CallStoreOptions, op: Operation): AbortableQueryOptions {
  return { signal: op.signal, inflightQueryAbortStrategy: store.inflightAbort };
}
