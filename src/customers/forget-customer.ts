import { randomUUID } from "node:crypto";
import { customerNotFound, type IdentifierQuery, identifierOf } from "../domain/customer.ts";
import type { Tenant } from "../domain/tenant.ts";
import { liftMark, markAndErase } from "../store/forget-me-marks.ts";
import type { CustomerOperation, CustomerStore } from "./customer-store.ts";
import { liveCustomerId } from "./live-customer.ts";

/**
 * The caller's "do not remember": the customer is erased as by eraseCustomer, and their numbers and external
 * ids are marked (by keyed hash only), so later calls from them are answered as new callers and save nothing
 * but the call's billing row until the mark is lifted. A merged ref forgets its survivor (one person).
 */
export async function forgetCustomer(
  store: CustomerStore,
  tenant: Tenant,
  ref: string,
  op: CustomerOperation,
): Promise<{ customerRef: string; identifiersMarked: number }> {
  const id = await liveCustomerId(store, tenant, ref);
  const done = await markAndErase(store.db, tenant, id, {
    id: randomUUID(),
    now: op.now,
    hashes: (identifiers) => store.forgetMe.hashes(tenant, identifiers),
  });
  if (done === undefined) throw customerNotFound(ref);
  store.erasures.request();
  return { customerRef: id, identifiersMarked: done.marked };
}

/**
 * Lifts the mark that covers this number or external id (normalised as at start), with every other
 * identifier it covers: the next call from them is remembered again, as a new customer.
 */
export async function liftForgetMe(
  store: CustomerStore,
  tenant: Tenant,
  query: IdentifierQuery,
): Promise<{ lifted: boolean; identifiersUnmarked: number }> {
  const identifier = identifierOf(query, store.defaultRegion);
  const [hash] = store.forgetMe.hashes(tenant, [identifier]);
  const unmarked = await liftMark(store.db, tenant, hash!);
  return { lifted: unmarked > 0, identifiersUnmarked: unmarked };
}
