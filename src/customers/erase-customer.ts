import { customerNotFound } from "../domain/customer.ts";
import type { Tenant } from "../domain/tenant.ts";
import { eraseCustomer as deleteCustomer } from "../store/customer-changes.ts";
import type { CustomerOperation, CustomerStore } from "./customer-store.ts";
import { liveCustomerId } from "./live-customer.ts";

/**
 * Forgets a customer: everything that holds their data goes in one
 * statement. A merged ref erases its survivor (they are one person); a
 * second erasure finds nothing (404).
 */
export async function eraseCustomer(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  op: CustomerOperation,
): Promise<{ customerRef: string }> {
  const id = await liveCustomerId(store, tenant, ref);
  if (!(await deleteCustomer(store.db, tenant, id, op.now))) throw customerNotFound(ref);
  store.erasures.request();
  return { customerRef: id };
}
