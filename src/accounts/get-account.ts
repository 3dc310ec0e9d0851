import type { Account } from "../domain/account.ts";
import { findAccount } from "../store/account-repository.ts";
import { accountNotFound, accountRowToAccount } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";

/** The account with its credits this period, or not_found. */
export async function getAccount(
  deps: Pick<AccountDeps, "db" | "clock" | "monthlyQuota">,
  accountId: string,
): Promise<Account> {
  const row = accountId === "" ? undefined : await findAccount(deps.db, accountId, deps.clock.now(), deps.monthlyQuota);
  if (row === undefined) throw accountNotFound(accountId);
  return accountRowToAccount(row);
}
