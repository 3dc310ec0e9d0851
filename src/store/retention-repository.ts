import { sql } from "kysely";
import type { Db } from "./database.ts";

// Deletes of what retention no longer keeps, each bounded to `limit` rows so
// one sweep never holds locks for long. Each returns the rows it removed.

/**
 * Customers whose last call is older than their account's retention. A pass reads the table (last_call_at is
 * not indexed, so that a start's update of it is HOT: migration 0008) and the accounts once each, joined by
 * hash: whatever the statistics said when the plan was made (docs/architecture.md, "The sweep joins by hash").
 * The rows found are deleted by ctid from an array, a TID scan that needs no join of its own.
 */
export async function deleteStaleCustomers(db: Db, now: Date, limit: number): Promise<number> {
  return withHashJoinsOnly(db, async () => {
    const result = await sql`
      delete from customers where ctid = any(array(
        select c.ctid from customers c join accounts a on a.id = c.account_id
        where c.last_call_at < ${now}::timestamptz - make_interval(days => a.context_retention_days)
        limit ${limit}
      ))
    `.execute(db);
    return Number(result.numAffectedRows ?? 0n);
  });
}

/**
 * Runs `work` with nested-loop and merge joins priced as a last resort, for the rest of the transaction `db` is
 * in, then puts them back to the session's own values. A plan made while the customers were few joins each
 * customer row to its account by an index probe (or, among many accounts, to every account): a sweep of 100,000
 * customers then probed the accounts 100,000 times. By hash, each table is read once, however many rows the
 * plan expected.
 */
async function withHashJoinsOnly<T>(db: Db, work: () => Promise<T>): Promise<T> {
  await sql`select set_config(name, 'off', true) from pg_settings where name in ${HASH_ONLY_OFF}`.execute(db);
  const result = await work();
  await sql`select set_config(name, reset_val, true) from pg_settings where name in ${HASH_ONLY_OFF}`.execute(db);
  return result;
}

const HASH_ONLY_OFF = sql`('enable_nestloop', 'enable_mergejoin')`;

export async function deleteOldCalls(db: Db, startedBefore: Date, limit: number): Promise<number> {
  await summarizeNewRanges(db, "calls_call_start");
  const result = await sql`
    delete from calls where ctid in (select ctid from calls where call_start < ${startedBefore} limit ${limit})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * Variables past their ttl. A pass reads the table (expires_at is not indexed, so that an end's save of a
 * variable it already holds is HOT: migration 0020); a read never returns one past its ttl, swept or not.
 */
export async function deleteExpiredVariables(db: Db, now: Date, limit: number): Promise<number> {
  const result = await sql`
    delete from variables where ctid in (select ctid from variables where expires_at <= ${now} limit ${limit})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

export async function deleteExpiredIdempotencyKeys(db: Db, now: Date, limit: number): Promise<number> {
  await summarizeNewRanges(db, "idempotency_keys_expires_at");
  const result = await sql`
    delete from idempotency_keys
    where ctid in (select ctid from idempotency_keys where expires_at <= ${now} limit ${limit})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * Summarises the pages a BRIN index (migration 0008) has not yet covered:
 * rows written since cost the index nothing, and the sweep's scan skips
 * whole ranges again.
 */
async function summarizeNewRanges(db: Db, index: string): Promise<void> {
  await sql`select brin_summarize_new_values(${index}::regclass)`.execute(db);
}

/**
 * Runs `work` in a transaction holding the advisory lock `lockId`, or returns
 * undefined at once when another instance holds it.
 */
export async function withSweepLock<T>(db: Db, lockId: number, work: (trx: Db) => Promise<T>): Promise<T | undefined> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${lockId}) as locked`.execute(trx);
    return rows[0]?.locked ? work(trx) : undefined;
  });
}
