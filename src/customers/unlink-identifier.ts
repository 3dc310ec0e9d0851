import { type Billed, billedResult, type ChargeOutcome } from "../calls/billed.ts";
import { type CustomerRecord, type IdentifierQuery, identifierOf } from "../domain/customer.ts";
import { DomainError } from "../domain/domain-error.ts";
import type { Tenant } from "../domain/tenant.ts";
import { unlinkIdentifier as deleteIdentifier } from "../store/customer-changes.ts";
import type { Db } from "../store/database.ts";
import { billOperation, type CustomerOperation, type CustomerStore, unbilled } from "./customer-store.ts";
import { liveCustomerId, recordOf } from "./live-customer.ts";

/**
 * Detaches a number or an external id from the customer, so the next start with it no longer finds them. Billed
 * within the change's transaction: the answer carries the charge's outcome, or the quota's refusal (then nothing
 * was detached).
 */
export function unlinkIdentifierBilled(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  query: IdentifierQuery,
  op: CustomerOperation,
): Promise<Billed<CustomerRecord>> {
  return billedResult(async () => {
    const identifier = identifierOf(query, store.defaultRegion);
    const id = await liveCustomerId(store, tenant, ref);
    let charge: ChargeOutcome | undefined;
    const bill = async (trx: Db) => {
      charge = await billOperation(trx, op);
    };
    if (!(await deleteIdentifier(store.db, tenant, id, identifier, bill))) {
      throw new DomainError(
        "not_found",
        `Customer '${ref}' has no such ${identifier.kind === "ani" ? "ani" : "external_id"}`,
      );
    }
    return { value: await recordOf(store, tenant, id, op.now), charge };
  });
}

/** unlinkIdentifierBilled without a charge. */
export function unlinkIdentifier(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  query: IdentifierQuery,
  op: CustomerOperation,
): Promise<CustomerRecord> {
  return unbilled(unlinkIdentifierBilled(store, tenant, ref, query, op));
}
