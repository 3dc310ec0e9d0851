import type { Tenant } from "../../domain/tenant.ts";
import type { Db } from "../database.ts";

/**
 * The customer a tenant's call belongs to (null for a caller marked "do not remember") and whether it has
 * ended; undefined when never started.
 */
export async function findCallState(
  db: Db,
  tenant: Tenant,
  callId: string,
): Promise<{ readonly customerId: string | null; readonly ended: boolean } | undefined> {
  const call = await db
    .selectFrom("calls")
    .select(["customer_id", "call_end"])
    .where("account_id", "=", tenant.accountId)
    .where("mode", "=", tenant.mode)
    .where("call_id", "=", callId)
    .executeTakeFirst();
  return call && { customerId: call.customer_id, ended: call.call_end !== null };
}
