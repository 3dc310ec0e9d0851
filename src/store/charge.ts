import type { Db } from "./database.ts";

/**
 * Bills an operation from inside its own transaction, as its last statement:
 * the credit is spent only if the operation commits, and a request that
 * fails never holds one. It throws to refuse (the transaction rolls back).
 */
export type Charge = (trx: Db) => Promise<void>;

export const noCharge: Charge = async () => {};
