import { DomainError } from "../domain/domain-error.ts";
import type { Tenant } from "../domain/tenant.ts";
import { findCallState } from "../store/calls/call-repository.ts";
import type { Db } from "../store/database.ts";

/** The customer of the tenant's open call `callId` (null: a forgotten caller's): not_found when it was never started, failed_precondition once ended. */
export async function openCall(
  db: Db,
  tenant: Tenant,
  callId: string,
): Promise<{ readonly customerId: string | null }> {
  const call = await findCallState(db, tenant, callId);
  if (call === undefined)
    throw new DomainError("not_found", `Call '${callId}' not found: never started, or erased with its customer`);
  if (call.ended) throw new DomainError("failed_precondition", `Call '${callId}' has already ended`);
  return call;
}
