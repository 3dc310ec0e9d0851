import { DomainError } from "../domain/domain-error.ts";
import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";

/** The error for an end that closed nothing: the call was never started, has ended, or the customer is unknown. */
export async function whyNotClosed(
  db: Db,
  tenant: Tenant,
  callId: string,
  customerRef: string | undefined,
): Promise<DomainError> {
  const call = await db
    .selectFrom("calls")
    .select("call_end")
    .where("account_id", "=", tenant.accountId)
    .where("mode", "=", tenant.mode)
    .where("call_id", "=", callId)
    .executeTakeFirst();
  if (call === undefined) return new DomainError("not_found", `Call '${callId}' was never started`);
  if (call.call_end !== null) return new DomainError("failed_precondition", `Call '${callId}' has already ended`);
  return new DomainError("not_found", `Customer '${customerRef}' not found`);
}
