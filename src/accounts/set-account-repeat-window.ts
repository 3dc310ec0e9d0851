import type { Account } from "../domain/account.ts";
import type { FieldIssue } from "../domain/domain-error.ts";
import { parseRepeatWindowDays } from "../domain/repeat-window.ts";
import { findAccount, setAccountRepeatWindow as storeRepeatWindow } from "../store/account-repository.ts";
import { accountNotFound, accountRowToAccount } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";

/**
 * Sets the account's repeat window (1 to 30 days). The contact figures' job reads it with each call it counts,
 * so it applies to the calls counted from then on; the counts already kept stay as they are.
 */
export async function setAccountRepeatWindow(
  deps: Pick<AccountDeps, "db" | "clock" | "monthlyQuota">,
  input: {
    readonly accountId: string;
    readonly repeatWindowDays: number | undefined;
    /** What the host could not decode of the request: refused with the rules' issues, in one answer. */
    readonly decodeIssues?: readonly FieldIssue[];
  },
): Promise<Account> {
  const days = parseRepeatWindowDays(input.repeatWindowDays, "repeat_window_days", input.decodeIssues);
  const changed = await storeRepeatWindow(deps.db, input.accountId, days);
  const row = changed && (await findAccount(deps.db, input.accountId, deps.clock.now(), deps.monthlyQuota));
  if (!row) throw accountNotFound(input.accountId);
  return accountRowToAccount(row);
}
