import type { AppContext } from "../context.ts";
import type { Clock } from "../domain/clock.ts";
import type { Db } from "../store/database.ts";
import type { MonthlyAllowance } from "../store/quota-slots.ts";

// What the account use cases need; the admin API, the dashboard and the first
// start each pass the same thing.

export interface AccountDeps {
  readonly db: Db;
  readonly clock: Clock;
  /** Cached key lookups carry the account's tier and revocation: dropped when either changes. */
  readonly keys: { forgetAll(): void };
  readonly monthlyQuota: MonthlyAllowance;
}

export function accountDepsOf(app: AppContext): AccountDeps {
  return { db: app.database.db, clock: app.clock, keys: app.keys, monthlyQuota: app.config.monthlyQuota };
}
