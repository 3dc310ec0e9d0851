import { sql } from "kysely";
import type { CustomerIdentifier } from "../domain/customer.ts";
import type { Tenant } from "../domain/tenant.ts";
import { eraseCustomer } from "./customer-changes.ts";
import type { Db } from "./database.ts";

// The "do not remember" marks: keyed hashes of a forgotten customer's identifiers (migration 0018).

/**
 * Marks every identifier of the customer with `markId` and erases the customer (as eraseCustomer does), in
 * one transaction. The customer's row is locked first: a start or an end that links an identifier to them
 * waits, so no identifier is erased without its mark. An identifier already marked moves to this mark.
 * Undefined when the tenant has no such customer.
 */
export async function markAndErase(
  db: Db,
  tenant: Tenant,
  customerId: string,
  mark: { readonly id: string; readonly now: Date; readonly hashes: (ids: CustomerIdentifier[]) => string[] },
): Promise<{ readonly marked: number } | undefined> {
  return db.transaction().execute(async (trx) => {
    const locked = await sql`
      select 1 from customers
      where id = ${customerId}::uuid and account_id = ${tenant.accountId} and mode = ${tenant.mode}
      for update
    `.execute(trx);
    if (locked.rows.length === 0) return undefined;
    const identifiers = await trx
      .selectFrom("customer_identifiers")
      .select(["kind", "namespace", "value"])
      .where("customer_id", "=", customerId)
      .execute();
    const hashes = [...new Set(mark.hashes(identifiers as CustomerIdentifier[]))];
    if (hashes.length > 0) {
      await trx
        .insertInto("forget_me_marks")
        .values(
          hashes.map((hash) => ({
            account_id: tenant.accountId,
            mode: tenant.mode,
            identifier_hash: hash,
            mark_id: mark.id,
            created_at: mark.now,
          })),
        )
        .onConflict((oc) => oc.columns(["account_id", "mode", "identifier_hash"]).doUpdateSet({ mark_id: mark.id }))
        .execute();
    }
    if (!(await eraseCustomer(trx, tenant, customerId, mark.now))) return undefined;
    return { marked: hashes.length };
  });
}

/** Deletes the whole mark the hash belongs to; the number of identifiers it covered (0: no mark). */
export async function liftMark(db: Db, tenant: Tenant, hash: string): Promise<number> {
  const result = await sql`
    delete from forget_me_marks
    where account_id = ${tenant.accountId} and mode = ${tenant.mode}
      and mark_id = (
        select mark_id from forget_me_marks
        where account_id = ${tenant.accountId} and mode = ${tenant.mode} and identifier_hash = ${hash}
      )
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
