import { type Billed, billedResult } from "../calls/billed.ts";
import type { CustomerRecord } from "../domain/customer.ts";
import type { Tenant } from "../domain/tenant.ts";
import { billOperation, type CustomerOperation, type CustomerStore, unbilled } from "./customer-store.ts";
import { liveCustomerId, recordOf } from "./live-customer.ts";

/**
 * The record of the customer a ref names; a merged ref shows its survivor. Billed once read: the answer carries
 * the charge's outcome, or the quota's refusal.
 */
export async function getCustomerBilled(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  op: CustomerOperation,
): Promise<Billed<CustomerRecord>> {
  return billedResult(async () => {
    const record = await recordOf(store, tenant, await liveCustomerId(store, tenant, ref), op.now);
    return { value: record, charge: await billOperation(store.db, op) };
  });
}

/** getCustomerBilled without a charge. */
export function getCustomer(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  op: CustomerOperation,
): Promise<CustomerRecord> {
  return unbilled(getCustomerBilled(store, tenant, ref, op));
}
