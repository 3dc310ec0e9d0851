import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";

/** Whether the tenant's call was started and whether it has ended; undefined when never started. */
export async function findCallState(
  db: Db,
  tenant: Tenant,
  callId: string,
): Promise<{ readonly ended: boolean } | undefined> {
  const call = await db
    .selectFrom("calls")
    .select("call_end")
    .where("account_id", "=", tenant.accountId)
    .where("mode", "=", tenant.mode)
    .where("call_id", "=", callId)
    .executeTakeFirst();
  return call && { ended: call.call_end !== null };
}
