import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";

export interface CallState {
  readonly customerId: string;
  readonly ended: boolean;
}

/** The customer a call of the tenant belongs to and whether it has ended; undefined when never started. */
export async function findCallState(db: Db, tenant: Tenant, callId: string): Promise<CallState | undefined> {
  const row = await db
    .selectFrom("calls")
    .select(["customer_id", "call_end"])
    .where("account_id", "=", tenant.accountId)
    .where("mode", "=", tenant.mode)
    .where("call_id", "=", callId)
    .executeTakeFirst();
  return row && { customerId: row.customer_id, ended: row.call_end !== null };
}
