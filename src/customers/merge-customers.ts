import { type CustomerRecord, customerNotFound } from "../domain/customer.ts";
import { type FieldIssue, validationError } from "../domain/domain-error.ts";
import type { Tenant } from "../domain/tenant.ts";
import { mergeCustomers as moveCustomer } from "../store/customer-changes.ts";
import { billOperation, type CustomerOperation, type CustomerStore } from "./customer-store.ts";
import { liveCustomerId, recordOf } from "./live-customer.ts";

/**
 * Merges customer `from` into the customer `ref` names: everything of `from`
 * moves, and its ref (with any aliases it had) names the survivor from now
 * on. Two refs of one customer cannot be merged. Billed within the merge's transaction.
 */
export async function mergeCustomers(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  from: string,
  op: CustomerOperation,
  decodeIssues: readonly FieldIssue[] = [],
): Promise<CustomerRecord> {
  // What the host could not decode comes first: one 400 names every offending field.
  const issues = [...decodeIssues, ...(from === "" ? [{ path: ["from"], message: "Required" }] : [])];
  if (issues.length > 0) throw validationError(issues);
  const survivor = await liveCustomerId(store, tenant, ref);
  const merged = await liveCustomerId(store, tenant, from);
  if (merged === survivor) {
    throw validationError([{ path: ["from"], message: "Names the same customer as customer_ref" }]);
  }
  // Either one may have been erased or merged away since it was resolved.
  if (!(await moveCustomer(store.db, tenant, survivor, merged, op.now, (trx) => billOperation(trx, op))))
    throw customerNotFound(`${ref}' or '${from}`);
  return recordOf(store, tenant, survivor, op.now);
}
