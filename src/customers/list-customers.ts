import { type CustomerSummary, type IdentifierQuery, identifierOf } from "../domain/customer.ts";
import type { Tenant } from "../domain/tenant.ts";
import { findCustomersByIdentifier } from "../store/customer-repository.ts";
import { billOperation, type CustomerOperation, type CustomerStore } from "./customer-store.ts";

/** The customers holding a number or an external id (none is an empty list, not an error). Billed. */
export async function listCustomers(
  store: CustomerStore,
  tenant: Tenant,
  query: IdentifierQuery,
  op: CustomerOperation,
): Promise<CustomerSummary[]> {
  const identifier = identifierOf(query, store.defaultRegion);
  const found = await findCustomersByIdentifier(store.db, tenant, identifier);
  await billOperation(store.db, op);
  return found;
}
