import type { CustomerRecord } from "../domain/customer.ts";
import type { Tenant } from "../domain/tenant.ts";
import { billOperation, type CustomerOperation, type CustomerStore } from "./customer-store.ts";
import { liveCustomerId, recordOf } from "./live-customer.ts";

/** The record of the customer a ref names; a merged ref shows its survivor. Billed once read. */
export async function getCustomer(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  op: CustomerOperation,
): Promise<CustomerRecord> {
  const record = await recordOf(store, tenant, await liveCustomerId(store, tenant, ref), op.now);
  await billOperation(store.db, op);
  return record;
}
