import { type Billed, billedResult } from "../calls/billed.ts";
import { type CustomerSummary, type IdentifierQuery, identifierOf } from "../domain/customer.ts";
import type { Tenant } from "../domain/tenant.ts";
import { findCustomersByIdentifier } from "../store/customer-repository.ts";
import { billOperation, type CustomerOperation, type CustomerStore, unbilled } from "./customer-store.ts";

/**
 * The customers holding a number or an external id (none is an empty list, not an error). Billed: the answer
 * carries the charge's outcome, or the quota's refusal.
 */
export async function listCustomersBilled(
  store: CustomerStore,
  tenant: Tenant,
  query: IdentifierQuery,
  op: CustomerOperation,
): Promise<Billed<CustomerSummary[]>> {
  return billedResult(async () => {
    const identifier = identifierOf(query, store.defaultRegion);
    const found = await findCustomersByIdentifier(store.db, tenant, identifier);
    return { value: found, charge: await billOperation(store.db, op) };
  });
}

/** listCustomersBilled without a charge. */
export function listCustomers(
  store: CustomerStore,
  tenant: Tenant,
  query: IdentifierQuery,
  op: CustomerOperation,
): Promise<CustomerSummary[]> {
  return unbilled(listCustomersBilled(store, tenant, query, op));
}
