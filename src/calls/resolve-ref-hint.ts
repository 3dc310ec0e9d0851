import type { NormalizedHints } from "../domain/caller-hints.ts";
import type { Tenant } from "../domain/tenant.ts";
import { resolveCustomerRef } from "../store/customer-repository.ts";
import type { Db } from "../store/database.ts";

/**
 * A customer_ref hint that names a merged customer names its survivor. A
 * ref that names nobody is kept: it matches nothing, as before.
 */
export async function resolveRefHint(db: Db, tenant: Tenant, hints: NormalizedHints): Promise<NormalizedHints> {
  if (hints.customerRef === undefined) return hints;
  const live = await resolveCustomerRef(db, tenant, hints.customerRef);
  return live === undefined || live === hints.customerRef ? hints : { ...hints, customerRef: live };
}
