import { abortOnSignal } from "./abort-plugin.ts";
import { type Charge, noCharge } from "./charge.ts";
import type { Db } from "./database.ts";

/** What every call operation gets besides its input: the time, the bill, the request's signal. */
export interface Operation {
  readonly now: Date;
  readonly charge?: Charge;
  readonly signal?: AbortSignal;
}

/**
 * Runs `work` in one transaction that stops at the request's signal and
 * bills the operation as its last statement. A request aborted while the
 * last statement ran still rolls back: nothing is committed for a caller who
 * was answered with an error.
 */
export async function inTransaction<T>(db: Db, op: Operation, work: (trx: Db) => Promise<T>): Promise<T> {
  op.signal?.throwIfAborted();
  return db.transaction().execute(async (transaction) => {
    const trx = op.signal ? transaction.withPlugin(abortOnSignal(op.signal)) : transaction;
    const result = await work(trx);
    await (op.charge ?? noCharge)(trx);
    op.signal?.throwIfAborted();
    return result;
  });
}
