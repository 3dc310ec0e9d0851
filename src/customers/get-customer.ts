import type { CustomerRecord } from "../domain/customer.ts";
import type { Tenant } from "../domain/tenant.ts";
import type { CustomerStore } from "./customer-store.ts";
import { liveCustomerId, recordOf } from "./live-customer.ts";

/** The record of the customer a ref names; a merged ref shows its survivor. */
export async function getCustomer(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  now: Date,
): Promise<CustomerRecord> {
  return recordOf(store, tenant, await liveCustomerId(store, tenant, ref), now);
}
