import { type RawBuilder, sql } from "kysely";
import type { Tenant } from "../domain/tenant.ts";

// Values a call's statement names in many places (the tenant's account and
// mode, the quota period, the charged account), each built once as a node
// that compileOnce turns into one parameter wherever the statement embeds it.
// A statement is built synchronously, so remembering the value for the last
// owner asked about (the request's tenant, its moment, its charge) gives every
// part of one statement the same node without passing it down. A WeakMap keyed
// by those per-request objects would do the same but keep them alive through
// young collections (V8 clears a WeakMap's entries only in a full collection),
// promoting every request's to the old generation.

/** `compute` for the last key asked about; computed afresh when the key is another. */
export function lastOf<K, V>(compute: (key: K) => V): (key: K) => V {
  let lastKey: K | undefined;
  let lastValue: V | undefined;
  return (key) => {
    if (lastKey !== key || lastValue === undefined) {
      lastValue = compute(key);
      lastKey = key;
    }
    return lastValue;
  };
}

export interface TenantParameters {
  readonly accountId: RawBuilder<string>;
  readonly mode: RawBuilder<string>;
}

export const tenantParameters: (tenant: Tenant) => TenantParameters = lastOf((tenant) => ({
  accountId: sql.val(tenant.accountId),
  mode: sql.val(tenant.mode),
}));
