import type { Tenant } from "./tenant.ts";
import type { Tier } from "./tiers.ts";

// Who a request acts for, once its API key (or its platform integration) is verified.

export interface Principal {
  readonly tenant: Tenant;
  readonly keyId: string;
  readonly billingAccountId: string;
  readonly tier: Tier;
  /** The account's context retention in days, read with the key (src/domain/retention.ts). */
  readonly retentionDays: number;
}
