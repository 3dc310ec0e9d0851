import { type CustomerRecord, customerNotFound, customerRefOf } from "../domain/customer.ts";
import type { Tenant } from "../domain/tenant.ts";
import { readCustomerRecord, resolveCustomerRef } from "../store/customer-repository.ts";
import type { CustomerStore } from "./customer-store.ts";

/** The live customer a ref names (itself, or the survivor of its merge); not found otherwise. */
export async function liveCustomerId(store: CustomerStore, tenant: Tenant, ref: string): Promise<string> {
  const id = await resolveCustomerRef(store.db, tenant, customerRefOf(ref));
  if (id === undefined) throw customerNotFound(ref);
  return id;
}

/** The record of a live customer; not found when it went in the meantime. */
export async function recordOf(store: CustomerStore, tenant: Tenant, id: string, now: Date): Promise<CustomerRecord> {
  const record = await readCustomerRecord(store.db, tenant, id, now);
  if (record === undefined) throw customerNotFound(id);
  return record;
}
