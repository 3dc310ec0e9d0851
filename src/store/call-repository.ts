import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";
import type { CallRow } from "./schema.ts";

/**
 * Records a call's start. Returns false when the call_id is taken; an id last
 * used before `reusableBefore` is free again. The primary key decides races.
 */
export async function insertCall(
  db: Db,
  tenant: Tenant,
  callId: string,
  customerId: string,
  now: Date,
  reusableBefore: Date,
): Promise<boolean> {
  const row = await db
    .insertInto("calls")
    .values({
      account_id: tenant.accountId,
      mode: tenant.mode,
      call_id: callId,
      customer_id: customerId,
      call_start: now,
      call_end: null,
    })
    .onConflict((oc) =>
      oc
        .columns(["account_id", "mode", "call_id"])
        .doUpdateSet((eb) => ({
          customer_id: eb.ref("excluded.customer_id"),
          call_start: eb.ref("excluded.call_start"),
          call_end: null,
        }))
        .where("calls.call_start", "<", reusableBefore),
    )
    .returning("call_id")
    .executeTakeFirst();
  return row !== undefined;
}

/** The call, locked until the transaction ends so two ends cannot both win. */
export async function findCallForUpdate(db: Db, tenant: Tenant, callId: string): Promise<CallRow | undefined> {
  return db
    .selectFrom("calls")
    .selectAll()
    .where("account_id", "=", tenant.accountId)
    .where("mode", "=", tenant.mode)
    .where("call_id", "=", callId)
    .forUpdate()
    .executeTakeFirst();
}

export async function markCallEnded(
  db: Db,
  tenant: Tenant,
  callId: string,
  customerId: string,
  callEnd: Date,
): Promise<void> {
  await db
    .updateTable("calls")
    .set({ call_end: callEnd, customer_id: customerId })
    .where("account_id", "=", tenant.accountId)
    .where("mode", "=", tenant.mode)
    .where("call_id", "=", callId)
    .execute();
}
