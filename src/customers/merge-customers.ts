import { type Billed, billedResult, type ChargeOutcome, type Done } from "../calls/billed.ts";
import { type CustomerRecord, customerNotFound } from "../domain/customer.ts";
import { type FieldIssue, validationError } from "../domain/domain-error.ts";
import type { Tenant } from "../domain/tenant.ts";
import { mergeCustomers as moveCustomer } from "../store/customer-changes.ts";
import type { Db } from "../store/database.ts";
import { billOperation, type CustomerOperation, type CustomerStore, unbilled } from "./customer-store.ts";
import { liveCustomerId, recordOf } from "./live-customer.ts";

/**
 * Merges customer `from` into the customer `ref` names: everything of `from`
 * moves, and its ref (with any aliases it had) names the survivor from now
 * on. Two refs of one customer cannot be merged. Billed within the merge's
 * transaction: the answer carries the charge's outcome, or the quota's refusal
 * (then the merge was undone).
 */
export function mergeCustomersBilled(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  from: string,
  op: CustomerOperation,
  decodeIssues: readonly FieldIssue[] = [],
): Promise<Billed<CustomerRecord>> {
  return billedResult(() => merge(store, tenant, ref, from, op, decodeIssues));
}

/** mergeCustomersBilled without a charge. */
export function mergeCustomers(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  from: string,
  op: CustomerOperation,
  decodeIssues: readonly FieldIssue[] = [],
): Promise<CustomerRecord> {
  return unbilled(mergeCustomersBilled(store, tenant, ref, from, op, decodeIssues));
}

async function merge(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  from: string,
  op: CustomerOperation,
  decodeIssues: readonly FieldIssue[],
): Promise<Done<CustomerRecord>> {
  // What the host could not decode comes first: one 400 names every offending field.
  const issues = [...decodeIssues, ...(from === "" ? [{ path: ["from"], message: "Required" }] : [])];
  if (issues.length > 0) throw validationError(issues);
  const survivor = await liveCustomerId(store, tenant, ref);
  const merged = await liveCustomerId(store, tenant, from);
  if (merged === survivor) {
    throw validationError([{ path: ["from"], message: "Names the same customer as customer_ref" }]);
  }
  // Either one may have been erased or merged away since it was resolved. The charge is taken in its transaction.
  let charge: ChargeOutcome | undefined;
  const bill = async (trx: Db) => {
    charge = await billOperation(trx, op);
  };
  if (!(await moveCustomer(store.db, tenant, survivor, merged, op.now, bill))) {
    throw customerNotFound(`${ref}' or '${from}`);
  }
  return { value: await recordOf(store, tenant, survivor, op.now), charge };
}
