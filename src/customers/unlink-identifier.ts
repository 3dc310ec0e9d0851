import { type CustomerRecord, type IdentifierQuery, identifierOf } from "../domain/customer.ts";
import { DomainError } from "../domain/domain-error.ts";
import type { Tenant } from "../domain/tenant.ts";
import { unlinkIdentifier as deleteIdentifier } from "../store/customer-changes.ts";
import { billOperation, type CustomerOperation, type CustomerStore } from "./customer-store.ts";
import { liveCustomerId, recordOf } from "./live-customer.ts";

/** Detaches a number or an external id from the customer, so the next start with it no longer finds them. */
export async function unlinkIdentifier(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  query: IdentifierQuery,
  op: CustomerOperation,
): Promise<CustomerRecord> {
  const identifier = identifierOf(query, store.defaultRegion);
  const id = await liveCustomerId(store, tenant, ref);
  if (!(await deleteIdentifier(store.db, tenant, id, identifier, (trx) => billOperation(trx, op)))) {
    throw new DomainError(
      "not_found",
      `Customer '${ref}' has no such ${identifier.kind === "ani" ? "ani" : "external_id"}`,
    );
  }
  return recordOf(store, tenant, id, op.now);
}
