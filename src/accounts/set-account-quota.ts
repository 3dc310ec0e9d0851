import type { Account } from "../domain/account.ts";
import { type FieldIssue, validationError } from "../domain/domain-error.ts";
import { setAccountCredits } from "../store/account-repository.ts";
import { accountNotFound, accountRowToAccount, checkQuota } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";

/** Sets this month's credits; the count belongs to the current period from now on. */
export async function setAccountQuota(
  deps: Pick<AccountDeps, "db" | "clock">,
  input: { readonly accountId: string; readonly quotaRemaining: number | undefined },
): Promise<Account> {
  const issues: FieldIssue[] = [];
  if (input.quotaRemaining === undefined) issues.push({ path: ["quota_remaining"], message: "Required" });
  else checkQuota(issues, "quota_remaining", input.quotaRemaining);
  if (input.quotaRemaining === undefined || issues.length > 0) throw validationError(issues);
  const row = await setAccountCredits(deps.db, input.accountId, input.quotaRemaining, deps.clock.now());
  if (row === undefined) throw accountNotFound(input.accountId);
  return accountRowToAccount(row);
}
