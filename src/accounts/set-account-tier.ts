import type { Account } from "../domain/account.ts";
import type { FieldIssue } from "../domain/domain-error.ts";
import { refuseOffendingFields } from "../domain/offending-fields.ts";
import { findAccount, setAccountTier as storeTier } from "../store/account-repository.ts";
import { accountNotFound, accountRowToAccount, checkTier, parseTier } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";

/** Moves the account to another tier; its limits apply at once on this instance. */
export async function setAccountTier(
  deps: Pick<AccountDeps, "db" | "keys" | "clock" | "monthlyQuota">,
  input: {
    readonly accountId: string;
    readonly tier: string;
    /** What the host could not decode of the request: refused with the rules' issues, in one answer. */
    readonly decodeIssues?: readonly FieldIssue[];
  },
): Promise<Account> {
  const issues: FieldIssue[] = [];
  checkTier(issues, input.tier);
  refuseOffendingFields(issues, input.decodeIssues);
  const tier = parseTier(input.tier);
  const now = deps.clock.now();
  const changed = await storeTier(deps.db, input.accountId, tier, now, deps.monthlyQuota);
  const row = changed && (await findAccount(deps.db, input.accountId, now, deps.monthlyQuota));
  if (!row) throw accountNotFound(input.accountId);
  // The tier travels with cached keys.
  deps.keys.forgetAll();
  return accountRowToAccount(row);
}
