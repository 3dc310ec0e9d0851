import type { Account } from "../domain/account.ts";
import type { FieldIssue } from "../domain/domain-error.ts";
import { refuseOffendingFields } from "../domain/offending-fields.ts";
import { setAccountCredits } from "../store/account-repository.ts";
import { accountNotFound, accountRowToAccount, checkQuota } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";

/** Sets this month's credits; the count belongs to the current period from now on. */
export async function setAccountQuota(
  deps: Pick<AccountDeps, "db" | "clock">,
  input: {
    readonly accountId: string;
    readonly quotaRemaining: number | undefined;
    /** What the host could not decode of the request: refused with the rules' issues, in one answer. */
    readonly decodeIssues?: readonly FieldIssue[];
  },
): Promise<Account> {
  const issues: FieldIssue[] = [];
  if (input.quotaRemaining === undefined) issues.push({ path: ["quota_remaining"], message: "Required" });
  else checkQuota(issues, "quota_remaining", input.quotaRemaining);
  refuseOffendingFields(issues, input.decodeIssues);
  // Absent was refused just above.
  const quota = input.quotaRemaining as number;
  const row = await setAccountCredits(deps.db, input.accountId, quota, deps.clock.now());
  if (row === undefined) throw accountNotFound(input.accountId);
  return accountRowToAccount(row);
}
