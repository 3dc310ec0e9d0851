import type { Clock } from "../domain/clock.ts";
import type { MonthlyAllowance } from "../domain/tiers.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Db } from "../store/database.ts";

// What the account use cases need; the admin API, the dashboard and the first
// start each pass the same thing.

export interface AccountDeps {
  readonly db: Db;
  readonly clock: Clock;
  /** Cached credential lookups (API keys, webhooks) carry the account's tier and revocation: dropped when either changes. */
  readonly keys: { forgetAll(): void };
  readonly monthlyQuota: MonthlyAllowance;
  readonly secrets: SecretBox;
}
