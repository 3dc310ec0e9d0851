import type { Account } from "../domain/account.ts";
import type { FieldIssue } from "../domain/domain-error.ts";
import { parseRetentionDays } from "../domain/retention.ts";
import { findAccount, setAccountRetention as storeRetention } from "../store/account-repository.ts";
import { accountNotFound, accountRowToAccount } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";

/**
 * Sets how long the account's callers are remembered (7 to 365 days). It travels with the cached key, so the
 * matching of this instance applies it at once; the sweep applies it on its next pass.
 */
export async function setAccountRetention(
  deps: Pick<AccountDeps, "db" | "keys" | "clock" | "monthlyQuota">,
  input: {
    readonly accountId: string;
    readonly contextRetentionDays: number | undefined;
    /** What the host could not decode of the request: refused with the rules' issues, in one answer. */
    readonly decodeIssues?: readonly FieldIssue[];
  },
): Promise<Account> {
  const days = parseRetentionDays(input.contextRetentionDays, "context_retention_days", input.decodeIssues);
  const changed = await storeRetention(deps.db, input.accountId, days);
  const row = changed && (await findAccount(deps.db, input.accountId, deps.clock.now(), deps.monthlyQuota));
  if (!row) throw accountNotFound(input.accountId);
  deps.keys.forgetAll();
  return accountRowToAccount(row);
}
