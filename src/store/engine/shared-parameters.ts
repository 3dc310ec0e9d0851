import { type RawBuilder, sql } from "kysely";
import type { Tenant } from "../../domain/tenant.ts";

// The tenant's account and mode, which a call's statement names in many
// places, each built once as a node that compileOnce turns into one parameter
// wherever the statement embeds it. Kept per tenant object (a request's), so
// every part of one statement gets the same nodes without passing them down.

export interface TenantParameters {
  readonly accountId: RawBuilder<string>;
  readonly mode: RawBuilder<string>;
}

const byTenant = new WeakMap<Tenant, TenantParameters>();

export function tenantParameters(tenant: Tenant): TenantParameters {
  let parameters = byTenant.get(tenant);
  if (parameters === undefined) {
    parameters = { accountId: sql.val(tenant.accountId), mode: sql.val(tenant.mode) };
    byTenant.set(tenant, parameters);
  }
  return parameters;
}
